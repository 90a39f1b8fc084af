// Lint rules, including the layer rules of docs/ARCHITECTURE.md: imports point down only
// (cli -> mcp -> tools -> domain; shared is importable by all and imports none of them).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * A layer's rule: none of its files imports a module whose specifier matches one of `forbidden`
 * (regular expressions), statically or with `await import()`, which no-restricted-imports alone
 * does not see.
 */
const layer = (files, forbidden, message) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', { patterns: forbidden.map((regex) => ({ regex, message })) }],
    'no-restricted-syntax': [
      'error',
      ...forbidden.map((regex) => ({
        selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\/')}/]`,
        message,
      })),
    ],
  },
});

const TOOLS = '(^|/)tools/';
const MCP = '(^|/)mcp/';
const CLI = '(^|/)cli/';
const DOMAIN = '(^|/)domain/';
const UI_LIBRARIES = ['^@modelcontextprotocol/', '^yargs', '^chalk(/|$)', '^ora(/|$)'];
/**
 * The domain modules the CLI's own verbs use, which are no tools: `wallet config` and `networks
 * add` (config-edit), `wallet approvals` (the approval store, the passkeys), `wallet state`
 * (owner-verbs), servers.json's lock, and errors.
 */
const OWNER_VERBS_DOMAIN =
  '(config/config-edit|policy/approvals|policy/passkeys|keystore/lock|state/owner-verbs|errors)\\.js$';

export default tseslint.config(
  { ignores: ['dist/', 'build/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        performance: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  { files: ['src/**/*.ts'], rules: { 'no-console': 'error' } },
  {
    // bin/ is CommonJS (bin/package.json): Node starts a CommonJS entry sooner. So are the test
    // fixtures preloaded with `node --require`.
    files: ['bin/**/*.js', 'test/fixtures/**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  layer(['src/domain/**'], [TOOLS, MCP, CLI, ...UI_LIBRARIES], 'domain/ knows nothing of tools, MCP or the CLI.'),
  layer(['src/tools/**'], [MCP, CLI, ...UI_LIBRARIES], 'tools/ are thin adapters over domain/: no MCP, no CLI.'),
  layer(['src/mcp/**'], [CLI, ...UI_LIBRARIES.slice(1)], 'mcp/ never imports the CLI.'),
  layer(
    ['src/cli/**'],
    [TOOLS, `${DOMAIN}(?!${OWNER_VERBS_DOMAIN})`, UI_LIBRARIES[0]],
    'cli/ talks to tools only over MCP (src/mcp/client); of domain/, only what its own verbs edit.',
  ),
  layer(['src/shared/**'], [TOOLS, MCP, CLI, DOMAIN, ...UI_LIBRARIES], 'shared/ is a leaf.'),
);

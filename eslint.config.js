// Lint rules, including the layer rules of docs/ARCHITECTURE.md: imports point down only
// (cli -> mcp -> tools -> domain; shared is importable by all and imports none of them).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const layer = (files, forbidden, message) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', { patterns: forbidden.map((group) => ({ group: [group], message })) }],
  },
});

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
  layer(
    ['src/domain/**'],
    ['**/tools/*', '**/mcp/*', '**/cli/*', '@modelcontextprotocol/*', 'yargs', 'chalk', 'ora'],
    'domain/ knows nothing of tools, MCP or the CLI.',
  ),
  layer(
    ['src/tools/**'],
    ['**/mcp/*', '**/cli/*', '@modelcontextprotocol/*', 'yargs', 'chalk', 'ora'],
    'tools/ are thin adapters over domain/: no MCP, no CLI.',
  ),
  layer(['src/mcp/**'], ['**/cli/*', 'yargs', 'chalk', 'ora'], 'mcp/ never imports the CLI.'),
  layer(
    ['src/cli/**'],
    ['**/tools/*', '**/domain/*', '@modelcontextprotocol/*'],
    'cli/ talks to tools only over MCP (src/mcp/client).',
  ),
  layer(
    ['src/shared/**'],
    ['**/tools/*', '**/mcp/*', '**/cli/*', '**/domain/*', '@modelcontextprotocol/*', 'yargs', 'chalk', 'ora'],
    'shared/ is a leaf.',
  ),
);

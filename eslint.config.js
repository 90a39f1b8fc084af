// Lint rules, including the layer rules of docs/ARCHITECTURE.md: imports point down only
// (cli -> mcp -> tools -> domain; shared is importable by all and imports none of them), and the
// start-up rule of docs/STARTUP.md: src/startup/ (how the wallet starts fast: the build's bundles,
// its records, the early spawn) sits above them all, and of it the layers read only the record
// of the tools' schemas.
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
      NO_NAME_READS,
      ...forbidden.map((regex) => ({
        selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\/')}/]`,
        message,
      })),
    ],
  },
});

/**
 * The start-up rule's import half: none of `files` imports a value of these libraries statically
 * (types are free), so no start initialises one that the command does not use.
 */
const heavyLibraries = (files, libraries, ignores = []) => ({
  files,
  ignores,
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: libraries.map((regex) => ({
          regex,
          allowTypeImports: true,
          message: 'Only some commands use this library: `await import()` it where it is used (docs/STARTUP.md).',
        })),
      },
    ],
  },
});
/** Libraries only some commands use (and the Platform SDK, which the bundles leave out). */
const HEAVY_LIBRARIES = [
  '^viem(/|$)',
  '^@x402/',
  '^@simplewebauthn/',
  '^pg$',
  '^qrcode$',
  '^ora$',
  '^puppeteer',
  '^@dashevo/evo-sdk$',
];
/** The start-up rule's other half: the bundles keep no function or class names (docs/STARTUP.md). */
const NO_NAME_READS = {
  selector: "MemberExpression[property.name='name'][object.property.name='constructor']",
  message: 'The bundles minify names (docs/STARTUP.md): give the object a name of its own and read that.',
};

const TOOLS = '(^|/)tools/';
const MCP = '(^|/)mcp/';
const CLI = '(^|/)cli/';
const DOMAIN = '(^|/)domain/';
const STARTUP = '(^|/)startup/';
/** The one module of src/startup/ another layer imports: the tools' catalogue reads the build's record. */
const STARTUP_RECORD = 'schema-record\\.js$';
const ANY_STARTUP = `${STARTUP}(?!${STARTUP_RECORD})`;
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
  layer(
    ['src/domain/**'],
    [TOOLS, MCP, CLI, STARTUP, ...UI_LIBRARIES],
    'domain/ knows nothing of tools, MCP, the CLI or the start-up machinery.',
  ),
  layer(
    ['src/tools/**'],
    [MCP, CLI, ANY_STARTUP, ...UI_LIBRARIES],
    'tools/ are thin adapters over domain/: no MCP, no CLI; of startup/, only the schema record.',
  ),
  layer(['src/mcp/**'], [CLI, STARTUP, ...UI_LIBRARIES.slice(1)], 'mcp/ never imports the CLI or startup/.'),
  layer(
    ['src/cli/**'],
    [TOOLS, `${DOMAIN}(?!${OWNER_VERBS_DOMAIN})`, STARTUP, UI_LIBRARIES[0]],
    'cli/ talks to tools only over MCP (src/mcp/client); of domain/, only what its own verbs edit; no startup/.',
  ),
  layer(['src/shared/**'], [TOOLS, MCP, CLI, DOMAIN, STARTUP, ...UI_LIBRARIES], 'shared/ is a leaf.'),
  // src/startup/ may import every layer (it builds and launches them), but the modules lower
  // layers or the bundles themselves take from it are leaves: the schema record, and the stand-in
  // the build wraps schemas in.
  layer(
    ['src/startup/schema-record.ts', 'src/startup/lazy-schema.ts'],
    [TOOLS, MCP, CLI, DOMAIN, `${STARTUP}`, '^\\./(?!.*\\.\\./)', ...UI_LIBRARIES],
    'a module of startup/ that other layers (or the bundles) take is a leaf: shared/ and libraries only.',
  ),
  // The start-up rule (docs/STARTUP.md) for the layers: a library only some commands use is
  // imported where it is used, with `await import()`, or statically only by a domain module that
  // itself loads on first use (test/e2e/lazy-modules.test.ts checks what a call initialises); the
  // Platform SDK, which the bundles leave out, only through src/domain/platform/sdk.ts's import().
  heavyLibraries(['src/cli/**', 'src/mcp/**', 'src/tools/**', 'src/shared/**'], HEAVY_LIBRARIES, [
    // The approval page's passkey ceremonies: the page loads with `await import()` (src/mcp/http/serve.ts).
    'src/mcp/page/passkey.ts',
  ]),
  heavyLibraries(['src/domain/**'], ['^@dashevo/evo-sdk$']),
);

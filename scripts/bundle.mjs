#!/usr/bin/env node
// The second half of `npm run build` (after tsc): makes `wallet` start fast. It writes
//   dist/wallet.cjs        the CLI and server bundled into one file (esbuild), which bin/wallet.js runs;
//   dist/serve.cjs         `wallet serve`'s own bundle (src/cli/serve-main.ts), a third smaller;
//   dist/builtin-tools.json the built-in server's tools/list, asked over MCP in-process, so help,
//                          completion and --get-tool-definition need not load the server;
//   dist/tool-schemas.json every tool's input and output JSON Schema, so the bundle converts none;
//   dist/ahead.cjs         what bin/wallet.js runs first for a --server call: it spawns the server;
//   dist/help.json         the CLI's help for the built-in tools, which bin/wallet.js prints itself;
//   dist/*.cache           V8's code cache of each bundle, taken after a run of each kind that
//                          bin/wallet.js tells apart (a built-in call, help, a call of another
//                          server; serve; the early spawn), so a run skips most parsing and
//                          compiling (V8 ignores a cache if Node changes).
// See docs/PERFORMANCE.md for what each one saves.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';
import { HELP_RECORD_FILE, recordHelp } from '../dist/cli/help-record.js';
import { openInProcessSession } from '../dist/mcp/in-process.js';
import { definitionsDigestOfBuild, schemaRecordOfBuild } from '../dist/tools/definitions-digest.js';
import { SCHEMA_RECORD_FILE } from '../dist/tools/schema-record.js';

const root = join(import.meta.dirname, '..');
const dist = join(root, 'dist');

// First of all, what a previous build derived from its bundles: V8 checks a code cache against
// its source's length only, not its text, so an old cache beside a new bundle of the same length
// would run old code; and bin/wallet.js would print old help. A build that fails halfway leaves
// none of them (bin/wallet.js then compiles from source, and renders help itself).
for (const file of [
  'wallet.cjs.cache',
  'wallet.cjs.help.cache',
  'wallet.cjs.remote.cache',
  'serve.cjs.cache',
  'ahead.cjs.cache',
  'help.json',
]) {
  rmSync(join(dist, file), { force: true });
}

// The MCP SDK's Node shims (the server's and the client's) import its Ajv validator statically,
// so every start initialised ajv and its formats, though the validator is built lazily and a CLI
// call never uses it (the server checks tools with zod; Ajv checks only an elicitation answer in
// `wallet serve`, and a `--server` session checks results with the interpreting validator). In
// the bundle each shim loads the SDK's own Ajv validator on its first use instead.
const sdkFile = (pkg, file) => join(root, 'node_modules', '@modelcontextprotocol', pkg, 'dist', file);
const LAZY_SHIMS = {
  server: `import process from 'node:process';\nexport { process };\n`,
  client: `export const CORS_IS_POSSIBLE = false;\n`,
};
const lazyAjv = {
  name: 'lazy-ajv',
  setup(build) {
    build.onResolve({ filter: /^@modelcontextprotocol\/(server|client)\/_shims$/ }, (args) => ({
      path: args.path.split('/')[1],
      namespace: 'lazy-ajv',
    }));
    build.onLoad({ filter: /.*/, namespace: 'lazy-ajv' }, (args) => ({
      resolveDir: root,
      loader: 'js',
      contents: `${LAZY_SHIMS[args.path]}export class DefaultJsonSchemaValidator {
  #ajv;
  getValidator(schema) {
    this.#ajv ??= new (require(${JSON.stringify(sdkFile(args.path, join('validators', 'ajv.mjs')))}).AjvJsonSchemaValidator)();
    return this.#ajv.getValidator(schema);
  }
}
`,
    }));
  },
};

// zod re-exports all of its ~50 translations of error messages as `z.locales`, and the bundle
// initialised every one on each start; zod itself configures English (`locales/en.js`), and
// nothing here or in the libraries bundled reads `z.locales`. The bundle keeps English only.
const englishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]node_modules[\\/]zod[\\/]v4[\\/]/.test(args.importer)
        ? { path: join(args.resolveDir, '..', 'locales', 'index.js'), namespace: 'zod-english-only' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-english-only' }, (args) => ({
      resolveDir: dirname(args.path),
      loader: 'js',
      contents: `export { default as en } from './en.js';\n`,
    }));
  },
};

// The built-in server's tools/list (full profile, local-only tools included: every tool), asked
// over MCP in-process on the compiled modules, which check every tool definition first: an
// unsound one fails the build here, before a bundle is written. The bundle then checks none at
// start (WALLET_DEFINITIONS_CHECKED_AT_BUILD), and its servers put the digest of what
// `tool_describe` answers about them beside its describe-all marker (WALLET_DEFINITIONS_DIGEST,
// src/tools/definitions-digest.ts), so a client may keep its answer.
const session = await openInProcessSession();
let builtInTools;
try {
  builtInTools = JSON.stringify({ server: session.server, tools: await session.listTools() }) + '\n';
} finally {
  await session.close();
}
const definitionsDigest = definitionsDigestOfBuild();
// Every tool's JSON Schemas, which the bundle takes instead of converting (src/tools/schema-record.ts):
// the bundle carries the record's stamp, so it takes no record of another build.
const schemaRecord = schemaRecordOfBuild();
writeFileSync(join(root, SCHEMA_RECORD_FILE), JSON.stringify(schemaRecord) + '\n');

// The CLI's bundle, and `wallet serve`'s own (src/cli/serve-main.ts: a third smaller, without the
// CLI's commands, its MCP client and the rest), built alike: bin/wallet.js picks one.
const bundleOf = (entry, outfile) =>
  build({
    entryPoints: [join(dist, 'cli', entry)],
    plugins: [lazyAjv, englishOnly],
    outfile: join(dist, outfile),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // Modules reached only through `await import()` stay uninitialised until a command needs them.
    // import.meta.url (package-info's way to find package.json) becomes the bundle's own URL.
    define: {
      'import.meta.url': '__bundleUrl',
      WALLET_DEFINITIONS_CHECKED_AT_BUILD: 'true',
      WALLET_DEFINITIONS_DIGEST: JSON.stringify(definitionsDigest),
      WALLET_SCHEMA_RECORD_DIGEST: JSON.stringify(schemaRecord.digest),
    },
    banner: { js: "'use strict';\nconst __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
await bundleOf('main.js', 'wallet.cjs');
await bundleOf('serve-main.js', 'serve.cjs');

// dist/ahead.cjs, which bin/wallet.js runs before the bundle when a command line has --server
// (src/cli/ahead.ts): it spawns a stdio server the cache knows, so that it starts while the CLI
// loads. Built from the same modules the CLI resolves its server with.
await build({
  entryPoints: [join(dist, 'cli', 'ahead.js')],
  plugins: [englishOnly],
  outfile: join(dist, 'ahead.cjs'),
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: "'use strict';\nconst __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'warning',
});

// bin/wallet.js reads the bundle as latin1, which is UTF-8 only for ASCII: esbuild's default
// charset escapes every other character, and this keeps it so.
for (const file of ['wallet.cjs', 'serve.cjs', 'ahead.cjs']) {
  const nonAscii = readFileSync(join(dist, file)).findIndex((byte) => byte > 0x7f);
  if (nonAscii !== -1)
    throw new Error(`dist/${file} is not ASCII (byte ${nonAscii}): bin/wallet.js reads it as latin1`);
}

writeFileSync(join(dist, 'builtin-tools.json'), builtInTools);

// `wallet --help` and `wallet <tool command> --help`, as the CLI prints them (src/cli/help-record.ts,
// from the list just written): bin/wallet.js prints these without loading the bundle.
writeFileSync(join(root, HELP_RECORD_FILE), JSON.stringify(await recordHelp()) + '\n');

// The code caches: bin/wallet.js runs a command with WALLET_CODE_CACHE set, then saves the cache
// of everything compiled so far in each bundle it loaded. For wallet.cjs: a tool call on a wallet
// of a throw-away home (the in-process MCP client and server, the tool catalogue, the keystore,
// the HD derivation: where a call spends its start-up); help (a fraction of the first); and a
// call of another server (the SDK's client, not the built-in server). For serve.cjs: an agent's
// first exchange (the handshake, tools/list and two calls). For ahead.cjs: its early spawn.
// bin/wallet.js picks the cache by the arguments.
const home = mkdtempSync(join(tmpdir(), 'wallet-code-cache-'));
const wallet = (args, env = {}, input = undefined) => {
  const run = spawnSync(process.execPath, [join(root, 'bin', 'wallet.js'), ...args], {
    env: { ...process.env, WALLET_HOME: home, NO_COLOR: '1', ...env },
    input,
    stdio: [input === undefined ? 'ignore' : 'pipe', 'ignore', 'inherit'],
  });
  if (run.status !== 0) throw new Error(`warming the code cache: wallet ${args[0]} failed (exit ${run.status})`);
};
try {
  const passphraseFile = join(home, 'passphrase');
  writeFileSync(passphraseFile, 'code cache warm-up passphrase\n', { mode: 0o600 });
  wallet(['core-wallet-create', '--alias', 'main', '--network', 'testnet', '--passphrase-file', passphraseFile]);
  wallet(['core-address-create', '--wallet-id', 'main', '--network', 'testnet', '--json'], {
    WALLET_CODE_CACHE: 'write',
  });
  // Not `--help` alone, which bin/wallet.js answers from dist/help.json without the bundle.
  wallet(['--help', '--no-color'], { WALLET_CODE_CACHE: 'write' });
  const call = (id, name, args) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
  const session = [
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'build', version: '1' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    call(2, 'network_info', {}),
    call(3, 'core_address_validate', { address: 'yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt' }),
  ];
  wallet(
    ['serve'],
    { WALLET_CODE_CACHE: 'write' },
    session.map((message) => JSON.stringify(message)).join('\n') + '\n',
  );
  // A call of another server, spoken to once before (so ahead.cjs spawns it): ahead.cjs's cache
  // and the bundle's third, for calls of another server.
  const server = ['--server', `"${process.execPath}" "${join(root, 'bin', 'wallet.js')}" serve`];
  wallet([...server, 'network-info', '--json']);
  wallet([...server, 'network-info', '--json'], { WALLET_CODE_CACHE: 'write' });
} finally {
  rmSync(home, { recursive: true, force: true });
}

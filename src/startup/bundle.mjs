#!/usr/bin/env node
// The second half of `npm run build` (after tsc): makes `wallet` start fast. It writes
//   dist/wallet.cjs        the CLI and server bundled into one file (esbuild), which bin/wallet.js runs;
//   dist/serve.cjs         `wallet serve`'s own bundle (src/cli/serve-main.ts), a third smaller;
//   dist/builtin-tools.json the built-in server's tools/list, asked over MCP in-process, so help,
//                          completion and --get-tool-definition need not load the server;
//   dist/tool-schemas.json every tool's input and output JSON Schema, so the bundle converts none;
//   dist/ahead.cjs         what bin/wallet.js runs first for a --server call: it spawns the server;
//   dist/viem.cjs, x402.cjs, webauthn.cjs, pg.cjs, jose.cjs, qrcode.cjs, ora.cjs
//                          the libraries only some commands use, which the bundles require from
//                          beside themselves when first used (BESIDE in bundle-options.mjs);
//   dist/help.json         the CLI's help for the built-in tools, which bin/wallet.js prints itself;
//   dist/*.cache           V8's code cache of each bundle, taken after a run of each kind that
//                          bin/wallet.js tells apart (a built-in call, help, a call of another
//                          server; serve; the early spawn), so a run skips most parsing and
//                          compiling (V8 ignores a cache if Node changes).
// See docs/STARTUP.md for what each one saves and the rule the rest of the code follows.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAheadBundle, buildBundle, buildLibrariesBeside } from './bundle-options.mjs';
import { HELP_RECORD_FILE, recordHelp } from '../../dist/startup/help-record.js';
import { openInProcessSession } from '../../dist/mcp/in-process.js';
import { definitionsDigestOfBuild, schemaRecordOfBuild } from '../../dist/tools/definitions-digest.js';
import { SCHEMA_RECORD_FILE } from '../../dist/startup/schema-record.js';

const root = join(import.meta.dirname, '..', '..');
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
// Every tool's JSON Schemas, which the bundle takes instead of converting (src/startup/schema-record.ts):
// the bundle carries the record's stamp, so it takes no record of another build.
const schemaRecord = schemaRecordOfBuild();
writeFileSync(join(root, SCHEMA_RECORD_FILE), JSON.stringify(schemaRecord) + '\n');

// The CLI's bundle, and `wallet serve`'s own (src/cli/serve-main.ts: a third smaller, without the
// CLI's commands, its MCP client and the rest), built alike: bin/wallet.js picks one. Then
// dist/ahead.cjs, which bin/wallet.js runs before the bundle when a command line has --server
// (src/startup/ahead.ts): it spawns a stdio server the cache knows, so that it starts while the CLI
// loads.
const stamps = { definitionsDigest, schemaRecordDigest: schemaRecord.digest };
await buildBundle('main.js', join(dist, 'wallet.cjs'), stamps);
await buildBundle('serve-main.js', join(dist, 'serve.cjs'), stamps);
await buildAheadBundle();
await buildLibrariesBeside();

// bin/wallet.js reads the bundle as latin1, which is UTF-8 only for ASCII: esbuild's default
// charset escapes every other character, and this keeps it so.
for (const file of ['wallet.cjs', 'serve.cjs', 'ahead.cjs']) {
  const nonAscii = readFileSync(join(dist, file)).findIndex((byte) => byte > 0x7f);
  if (nonAscii !== -1)
    throw new Error(`dist/${file} is not ASCII (byte ${nonAscii}): bin/wallet.js reads it as latin1`);
}

writeFileSync(join(dist, 'builtin-tools.json'), builtInTools);

// `wallet --help` and `wallet <tool command> --help`, as the CLI prints them (src/startup/help-record.ts,
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

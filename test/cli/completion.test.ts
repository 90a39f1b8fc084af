/**
 * `wallet completion bash|zsh|fish`: the generated scripts run in the real shells (see
 * test/helpers/shells.ts for how each one is driven), against a temporary data directory with a
 * keystore and the tool caches of two other servers, with fake `node` and `wallet` first on PATH
 * that would leave a mark if TAB ever ran them.
 */
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { toolCommands } from '../../src/cli/commands.js';
import {
  COMPLETION_FILES,
  COMPLETION_SHELLS,
  completionScript,
  completionTable,
  serverCacheKey,
} from '../../src/cli/completion/index.js';
import type { ToolCommand } from '../../src/cli/help.js';
import type { ListedTool } from '../../src/mcp/client.js';
import { openInProcessSession } from '../../src/mcp/in-process.js';
import { AGENTS } from '../../src/cli/servers/agent-configs.js';
import { SETUP_CLIENTS } from '../../src/cli/setup/command.js';
import { LOG_LEVELS } from '../../src/mcp/logger.js';
import { FUNCTION_DIALECTS } from '../../src/shared/function-catalogue.js';
import { passphraseFileIn, wallet } from '../helpers/io.js';
import { bashCompletions, fishCompletions, missingShell, zshCompletions, type Completions } from '../helpers/shells.js';

const NO_FISH = missingShell('fish');
const NO_ZSH = missingShell('zsh');

/** A server nobody would name its tools like this: dots, slashes, capitals, odd summaries. */
const OTHER_SERVER_TOOLS: ListedTool[] = [
  {
    name: 'Get.Thing/v2',
    description: `Gets a "thing": 'quoted', $(not run) \`nor this\`\tafter a tab\nsecond line`,
    inputSchema: {
      type: 'object',
      properties: {
        mode: { type: 'string', enum: ['fast', 'slow mode', 'a:b'], description: 'How: fast or slow' },
        token: { type: 'string', format: 'password', description: 'API token' },
      },
    },
  },
  {
    name: 'odd_summary',
    description: "it's 100% odd \\ with a backslash",
    inputSchema: { type: 'object', properties: { verbose: { type: 'boolean' } } },
  },
];
const HTTP_SERVER_TOOLS: ListedTool[] = [
  { name: 'remote_only_tool', description: 'Only on the HTTP server', inputSchema: { type: 'object' } },
];
const SERVER_COMMAND = 'node x.js';
const SERVER_URL = 'http://127.0.0.1:3001/mcp';
const WALLET_CANDIDATES = ['0a1b2c3d', 'df6be60f', 'main', 'other', 'savings'];
/** The built-in EVM networks (the schema's examples) and the one config.json adds. */
const EVM_NETWORK_CANDIDATES = ['base-fork', 'local', 'mainnet', 'sepolia'];
/** The servers of servers.json. */
const SERVER_CANDIDATES = ['github', 'local.node'];
/** The aliases of the keystore's EVM accounts: one derived in a wallet file, one imported key. */
const EVM_ACCOUNT_CANDIDATES = ['imported-key', 'nested-evm'];

/** The command lines every shell completes, by what they check (and one path, once the data directory exists). */
const FIXED_LINES = {
  corePrefix: 'wallet core-',
  networkFlag: 'wallet core-address-create --net',
  networkValue: 'wallet core-address-create --network ',
  networkEquals: 'wallet core-address-create --network=te',
  walletId: 'wallet core-address-create --wallet-id ',
  evmNetworkValue: 'wallet evm-balance-get --network ',
  evmNetworkPrefix: 'wallet evm-balance-get --network=ba',
  savedServer: 'wallet --server ',
  savedServerAfterCommand: 'wallet core-wallets-list --server ',
  accountAddress: 'wallet evm-balance-get --address ',
  accountTo: 'wallet evm-funds-send --to ',
  accountFrom: 'wallet evm-funds-send --network local --address ',
  tokenContract: 'wallet evm-balance-get --token ',
  importFlags: 'wallet core-wallet-import --',
  globalBeforeCommand: 'wallet --json --ti',
  format: 'wallet --format ',
  completion: 'wallet completion ',
  logLevel: 'wallet serve --log-level ',
  serveFlags: 'wallet serve --',
  refresh: 'wallet tools --r',
  importFrom: 'wallet servers import --from ',
  setupClients: 'wallet setup ',
  setupScope: 'wallet setup codex --scope ',
  serverCommands: `wallet --server "${SERVER_COMMAND}" `,
  serverFlags: `wallet --server "${SERVER_COMMAND}" Get.Thing/v2 --`,
  serverChoiceWithSpace: `wallet --server "${SERVER_COMMAND}" Get.Thing/v2 --mode sl`,
  serverChoiceWithColon: `wallet --server "${SERVER_COMMAND}" Get.Thing/v2 --mode a:`,
  serverNotCached: 'wallet --server "node missing.js" ',
  url: `wallet --url ${SERVER_URL} `,
  urlEquals: `wallet --url=${SERVER_URL} remote-`,
};
type Case = keyof typeof FIXED_LINES | 'passphraseFile';

type Fixture = {
  dir: string;
  home: string;
  /** $HOME of the shells. */
  userHome: string;
  marker: string;
  env: Record<string, string>;
  scripts: Record<(typeof COMPLETION_SHELLS)[number], string>;
  commands: ToolCommand[];
  lines: Record<Case, string>;
};

let fixture: Fixture;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wallet-completion-'));
  const session = await openInProcessSession({});
  let commands: ToolCommand[];
  try {
    commands = toolCommands(await session.listTools());
  } finally {
    await session.close();
  }
  const scripts = Object.fromEntries(
    COMPLETION_SHELLS.map((shell) => {
      const path = join(dir, COMPLETION_FILES[shell]);
      writeFileSync(path, completionScript(shell, commands));
      return [shell, path];
    }),
  ) as Fixture['scripts'];
  const home = join(dir, 'wallet-home');
  writeKeystore(home);
  writeToolCache(home, serverCacheKey('server', SERVER_COMMAND), OTHER_SERVER_TOOLS);
  writeToolCache(home, serverCacheKey('url', SERVER_URL), HTTP_SERVER_TOOLS);
  writeFileSync(join(home, 'passphrase.txt'), 'pw\n', { mode: 0o600 });
  await writeSavedValues(home);
  const lines = { ...FIXED_LINES, passphraseFile: `wallet --passphrase-file ${home}/pass` };

  const bin = join(dir, 'bin');
  const marker = join(dir, 'ran');
  mkdirSync(bin);
  for (const name of ['node', 'wallet']) {
    writeFileSync(join(bin, name), `#!/bin/sh\necho "${name} $*" >> '${marker}'\n`);
    chmodSync(join(bin, name), 0o755);
  }
  const userHome = join(dir, 'user-home');
  mkdirSync(userHome);
  const env = {
    PATH: `${bin}:${process.env['PATH'] ?? '/usr/bin:/bin'}`,
    HOME: userHome,
    WALLET_HOME: home,
    LANG: 'C.UTF-8',
  };
  fixture = { dir, home, userHome, marker, env, scripts, commands, lines };
});

after(() => rmSync(fixture.dir, { recursive: true, force: true }));

/** Wallets as the keystore writes them (2-space JSON), an imported EVM key, and nested aliases that are not wallets. */
function writeKeystore(home: string): void {
  const keystore = join(home, 'keystore');
  mkdirSync(keystore, { recursive: true });
  const wallet = (id: string, alias: string, network: string): string =>
    JSON.stringify(
      {
        format: 'wallet-keystore',
        version: 1,
        id,
        alias,
        network,
        created_at: '2026-01-01T00:00:00.000Z',
        account: { index: 0, path: "m/44'/1'/0'", xpub: 'tpubFAKE', next_receive: 0, next_change: 0 },
        evm: { xpub: 'xpubFAKE', accounts: [{ index: 0, address: `0x${'ab'.repeat(20)}`, alias: 'nested-evm' }] },
        crypto: { cipher: 'aes-256-gcm', ciphertext: '00', kdf: 'scrypt' },
      },
      null,
      2,
    ) + '\n';
  writeFileSync(join(keystore, 'df6be60f-testnet.json'), wallet('df6be60f', 'main', 'testnet'));
  writeFileSync(join(keystore, 'df6be60f-regtest.json'), wallet('df6be60f', 'other', 'regtest'));
  writeFileSync(join(keystore, '0a1b2c3d-mainnet.json'), wallet('0a1b2c3d', 'savings', 'mainnet'));
  writeFileSync(
    join(keystore, `evm-${'cd'.repeat(20)}.json`),
    JSON.stringify({ format: 'wallet-evm-key', id: 'feedbeef', alias: 'imported-key' }, null, 2) + '\n',
  );
  // Edited by hand into no alias the keystore accepts: never offered.
  writeFileSync(
    join(keystore, `evm-${'ef'.repeat(20)}.json`),
    JSON.stringify({ format: 'wallet-evm-key', alias: '$(reboot)' }, null, 2) + '\n',
  );
}

/**
 * config.json with an EVM network of one's own and servers.json with two servers, written by hand,
 * then any wallet command: the CLI brings the completion values file up to date as it ends.
 */
async function writeSavedValues(home: string): Promise<void> {
  writeFileSync(
    join(home, 'config.json'),
    JSON.stringify({ evm: { networks: { 'base-fork': { url: 'http://127.0.0.1:8545', chain_id: 8453 } } } }),
  );
  writeFileSync(
    join(home, 'servers.json'),
    JSON.stringify({ mcpServers: { github: { url: 'https://example.com/mcp' }, 'local.node': { command: 'node' } } }),
  );
  const listed = await wallet(['servers', 'list', '--json'], { home });
  assert.equal(listed.code, 0, listed.stderr);
}

function writeToolCache(home: string, key: string, tools: ListedTool[]): void {
  const dir = join(home, 'cache', 'tools');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${key}.tsv`), completionTable(toolCommands(tools)));
}

const sorted = (values: readonly string[]): string[] => [...values].sort();

function coreCommands(): string[] {
  return sorted(fixture.commands.map(({ command }) => command).filter((command) => command.startsWith('core-')));
}

/**
 * What every shell must offer; `equalsForm` is how a shell returns a value typed as
 * `--flag=value` (bash replaces only the text after `=`, fish the whole word).
 */
function checkCommon(results: Record<Case, Completions>, shell: string): void {
  const names = (key: Case): string[] => sorted(results[key].candidates);
  const message = (key: Case): string => `${shell}: ${fixture.lines[key]}<TAB> gave ${JSON.stringify(names(key))}`;

  assert.deepEqual(names('corePrefix'), coreCommands(), message('corePrefix'));
  assert.ok(names('corePrefix').includes('core-address-create'), message('corePrefix'));
  assert.deepEqual(names('networkFlag'), ['--network'], message('networkFlag'));
  assert.deepEqual(names('networkValue'), ['mainnet', 'regtest', 'testnet'], message('networkValue'));
  assert.deepEqual(names('walletId'), WALLET_CANDIDATES, message('walletId'));
  assert.deepEqual(names('evmNetworkValue'), EVM_NETWORK_CANDIDATES, message('evmNetworkValue'));
  assert.deepEqual(names('savedServer'), SERVER_CANDIDATES, message('savedServer'));
  assert.deepEqual(names('savedServerAfterCommand'), SERVER_CANDIDATES, message('savedServerAfterCommand'));
  assert.deepEqual(names('accountAddress'), EVM_ACCOUNT_CANDIDATES, message('accountAddress'));
  assert.deepEqual(names('accountTo'), EVM_ACCOUNT_CANDIDATES, message('accountTo'));
  assert.deepEqual(names('accountFrom'), EVM_ACCOUNT_CANDIDATES, message('accountFrom'));
  // A token contract is an address, never an account of ours: nothing to offer.
  assert.deepEqual(names('tokenContract'), [], message('tokenContract'));

  const importFlags = names('importFlags');
  for (const flag of [
    '--mnemonic-stdin',
    '--mnemonic-file',
    '--mnemonic-passphrase-stdin',
    '--mnemonic-passphrase-file',
    '--discover',
    '--no-discover',
    '--args-json',
    '--json',
    '--passphrase-file',
    '--no-color',
  ]) {
    assert.ok(importFlags.includes(flag), `${message('importFlags')}: no ${flag}`);
  }
  for (const secret of ['--mnemonic', '--mnemonic-passphrase']) {
    assert.ok(!importFlags.includes(secret), `${message('importFlags')}: the secret ${secret} offered inline`);
  }

  assert.deepEqual(names('globalBeforeCommand'), ['--timeout'], message('globalBeforeCommand'));
  assert.deepEqual(names('format'), sorted(FUNCTION_DIALECTS), message('format'));
  assert.deepEqual(names('completion'), ['bash', 'fish', 'zsh'], message('completion'));
  assert.deepEqual(names('logLevel'), sorted(LOG_LEVELS), message('logLevel'));
  assert.deepEqual(
    names('serveFlags'),
    sorted([
      '--read-only',
      '--profile',
      '--log-level',
      '--passphrase-file',
      '--endpoint',
      '--help',
      '--http',
      '--listen',
      '--api-key-file',
      '--auth',
      '--no-auth',
      '--allow-remote',
      '--allowed-host',
    ]),
    message('serveFlags'),
  );
  // --read-only is a global flag (it goes with --get-tool-definition), so it completes here too.
  assert.deepEqual(names('refresh'), ['--read-only', '--refresh'], message('refresh'));
  assert.deepEqual(names('importFrom'), sorted(AGENTS), message('importFrom'));
  assert.deepEqual(
    names('setupClients').filter((name) => !name.startsWith('-')),
    sorted(SETUP_CLIENTS),
    message('setupClients'),
  );
  assert.deepEqual(names('setupScope'), ['project', 'user'], message('setupScope'));

  const other = names('serverCommands');
  for (const command of ['Get.Thing/v2', 'odd-summary', 'serve', 'tools', 'servers', 'completion']) {
    assert.ok(other.includes(command), `${message('serverCommands')}: no ${command}`);
  }
  assert.ok(!other.some((command) => command.startsWith('core-')), message('serverCommands'));
  const otherFlags = names('serverFlags');
  for (const flag of ['--mode', '--token-stdin', '--token-file', '--args-json', '--json']) {
    assert.ok(otherFlags.includes(flag), `${message('serverFlags')}: no ${flag}`);
  }
  assert.ok(!otherFlags.includes('--token'), `${message('serverFlags')}: the secret --token offered inline`);

  const notCached = names('serverNotCached');
  assert.ok(notCached.includes('--json') && notCached.includes('--server'), message('serverNotCached'));
  assert.ok(
    notCached.every((candidate) => candidate.startsWith('-')),
    `${message('serverNotCached')}: only global flags`,
  );
  const overHttp = names('url');
  assert.ok(overHttp.includes('remote-only-tool') && overHttp.includes('tools'), message('url'));
  assert.ok(!overHttp.includes('Get.Thing/v2') && !overHttp.includes('core-address-create'), message('url'));
  assert.deepEqual(names('urlEquals'), ['remote-only-tool'], message('urlEquals'));
}

function completeAll(complete: (lines: string[]) => Completions[]): Record<Case, Completions> {
  const keys = Object.keys(fixture.lines) as Case[];
  const results = complete(keys.map((key) => fixture.lines[key]));
  return Object.fromEntries(keys.map((key, index) => [key, results[index]])) as Record<Case, Completions>;
}

describe('completion table and cache key', () => {
  it('keeps one record per line (a summary is its first line), and skips names no shell word can hold', () => {
    const table = completionTable(
      toolCommands([
        ...OTHER_SERVER_TOOLS,
        { name: '-looks-like-a-flag', inputSchema: { type: 'object' } },
        { name: 'has space', inputSchema: { type: 'object' } },
      ]),
    );
    const lines = table.trimEnd().split('\n');
    assert.equal(lines[0], 'wallet-completion\t1');
    assert.ok(
      lines.includes(`cmd\t-\tGet.Thing/v2\tglobals\tGets a "thing": 'quoted', $(not run) \`nor this\` after a tab`),
      table,
    );
    assert.ok(lines.includes('val\tGet.Thing/v2\t--mode\tslow mode'), table);
    assert.ok(lines.includes('flag\tGet.Thing/v2\t--token-file\tfile\tAPI token (read from an owner-only file)'));
    assert.ok(!lines.some((line) => line.startsWith('flag\tGet.Thing/v2\t--token\t')), 'no inline secret');
    assert.ok(!table.includes('looks-like-a-flag') && !table.includes('has space'), table);
    for (const line of lines.slice(1)) {
      const fields = line.split('\t');
      assert.ok(fields.length >= 4 && fields.slice(0, -1).every((field) => field !== ''), line);
    }
  });

  it('names a server cache by the SHA-256 of kind:value in UTF-8, as sha256sum computes it', () => {
    assert.equal(
      serverCacheKey('server', SERVER_COMMAND),
      'da5fb623a02a3c7c80af5954c50a616415c9af84c067a0114b0fbe49d90da510',
    );
    assert.equal(serverCacheKey('url', SERVER_URL), '671bbc4fd67ec7d0444314e50b1c75ae7458e78208c52348d18a2f3844d51b0c');
    assert.equal(serverCacheKey('server', 'café'), '51ffbeed15d40365f90237fb17b0e18c372f294b40f7199528cde51267d8e5a8');
  });
});

describe('the completion values file', () => {
  it('holds the configured EVM networks and the saved servers, owner-only, rewritten when they change', async () => {
    const path = join(fixture.home, 'cache', 'completion-values.tsv');
    assert.equal(
      readFileSync(path, 'utf8'),
      'evm-network\tbase-fork\nevm-account\timported-key\nevm-account\tnested-evm\nserver\tgithub\nserver\tlocal.node\n',
    );
    const home = mkdtempSync(join(fixture.dir, 'values-'));
    const added = await wallet(['servers', 'add', 'linear', '--url', 'https://example.com/linear'], { home });
    assert.equal(added.code, 0, added.stderr);
    const valuesPath = join(home, 'cache', 'completion-values.tsv');
    assert.equal(readFileSync(valuesPath, 'utf8'), 'server\tlinear\n');
    assert.equal(statSync(valuesPath).mode & 0o777, 0o600);
    const written = statSync(valuesPath);
    const listed = await wallet(['servers', 'list'], { home });
    assert.equal(listed.code, 0, listed.stderr);
    const after = statSync(valuesPath);
    assert.deepEqual([after.ino, after.mtimeMs], [written.ino, written.mtimeMs], 'not rewritten when unchanged');
    const removed = await wallet(['servers', 'remove', 'linear'], { home });
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(readFileSync(valuesPath, 'utf8'), '');
  });

  it('is left alone by --help and --version, which read no file', async () => {
    const home = mkdtempSync(join(fixture.dir, 'help-'));
    writeFileSync(
      join(home, 'servers.json'),
      JSON.stringify({ mcpServers: { github: { url: 'https://x.test/mcp' } } }),
    );
    for (const argv of [['--help'], ['servers', '--help'], ['evm-balance-get', '--help'], ['--version']]) {
      assert.equal((await wallet(argv, { home })).code, 0, argv.join(' '));
    }
    assert.ok(!existsSync(join(home, 'cache', 'completion-values.tsv')));
  });

  it('is not written while there is nothing to offer', async () => {
    const home = mkdtempSync(join(fixture.dir, 'empty-'));
    assert.equal((await wallet(['servers', 'list'], { home })).code, 0);
    assert.ok(!existsSync(join(home, 'cache')));
  });

  it('carries the built-in EVM networks as values of every EVM --network flag in the table', () => {
    const table = completionTable(fixture.commands);
    assert.ok(table.includes('flag\tevm-balance-get\t--network\tevm-network\t'), 'the flag declares its kind');
    for (const network of ['mainnet', 'sepolia', 'local']) {
      assert.ok(table.includes(`val\tevm-balance-get\t--network\t${network}\n`), network);
    }
    assert.ok(table.includes('flag\tcore-address-create\t--network\tchoice\t'), 'Dash networks stay a choice');
  });
});

/** What TAB offers after `wallet networks add`, `wallet servers add` and `evm-account-import`, in every shell. */
describe('values added by commands complete at the next TAB', () => {
  const lines = [FIXED_LINES.evmNetworkValue, FIXED_LINES.savedServer, FIXED_LINES.accountTo];
  let home: string;
  let env: Record<string, string>;
  const shells: Record<string, (() => Completions[]) | undefined> = {};
  const tab = (shell: string): string[][] => (shells[shell]?.() ?? []).map(({ candidates }) => sorted(candidates));

  before(() => {
    home = mkdtempSync(join(fixture.dir, 'added-'));
    env = { ...fixture.env, WALLET_HOME: home };
    shells['bash'] = () => bashCompletions(fixture.scripts.bash, lines, env, join(fixture.dir, 'added-bash'));
    if (!NO_FISH)
      shells['fish'] = () => fishCompletions(fixture.scripts.fish, lines, env, join(fixture.dir, 'added-fish'));
    if (!NO_ZSH) {
      shells['zsh'] = () => zshCompletions(fixture.scripts.zsh, lines, env, join(fixture.dir, 'added-zsh'), 'fpath');
    }
  });

  it('offers only the built-in networks, and no server or account, before', () => {
    for (const shell of Object.keys(shells)) {
      assert.deepEqual(tab(shell), [['local', 'mainnet', 'sepolia'], [], []], shell);
    }
  });

  it('offers the network, server and account alias just added, after', async () => {
    const passphrase = passphraseFileIn(fixture.dir, 'a passphrase of some length', 'account-pw');
    const added = [
      await wallet(['networks', 'add', 'my-chain', '--rpc-url', 'http://127.0.0.1:9/', '--chain-id', '8453'], { home }),
      await wallet(['servers', 'add', 'linear', '--url', 'https://example.com/linear'], { home }),
      await wallet(['evm-account-import', '--private-key-stdin', '--alias', 'agent', '--passphrase-file', passphrase], {
        home,
        stdin: `0x${'42'.repeat(32)}\n`,
      }),
    ];
    for (const result of added) assert.equal(result.code, 0, result.stderr);
    for (const shell of Object.keys(shells)) {
      assert.deepEqual(tab(shell), [['local', 'mainnet', 'my-chain', 'sepolia'], ['linear'], ['agent']], shell);
    }
  });
});

describe('bash completion (real bash: the function `complete -p wallet` names, COMP_LINE/COMP_POINT set)', () => {
  let results: Record<Case, Completions>;
  let elapsedMs: number;
  before(() => {
    const started = performance.now();
    results = completeAll((lines) => bashCompletions(fixture.scripts.bash, lines, fixture.env, fixture.dir));
    elapsedMs = performance.now() - started;
  });

  it('completes commands, flags, choices, wallets and other servers', () => checkCommon(results, 'bash'));

  it('replaces only the text after = or : (COMP_WORDBREAKS), and quotes a value with a space', () => {
    assert.deepEqual(results.networkEquals.candidates, ['testnet']);
    assert.deepEqual(results.evmNetworkPrefix.candidates, ['base-fork']);
    assert.deepEqual(results.serverChoiceWithSpace.candidates, ['slow\\ mode']);
    assert.deepEqual(results.serverChoiceWithColon.candidates, ['b']);
  });

  it('completes paths after --passphrase-file', () => {
    assert.deepEqual(results.passphraseFile.candidates, [join(fixture.home, 'passphrase.txt')]);
  });

  it('answers without node, fast', () => {
    const perLine = elapsedMs / Object.keys(fixture.lines).length;
    assert.ok(perLine < 100, `${perLine.toFixed(1)} ms per completion`);
  });
});

describe('fish completion (real fish: complete -C)', { skip: NO_FISH }, () => {
  let results: Record<Case, Completions>;
  before(() => {
    results = completeAll((lines) => fishCompletions(fixture.scripts.fish, lines, fixture.env, fixture.dir));
  });

  it('completes commands, flags, choices, wallets and other servers', () => checkCommon(results, 'fish'));

  it('shows summaries as descriptions, odd characters intact', () => {
    const { candidates, descriptions } = results.corePrefix;
    const summary = fixture.commands.find(({ command }) => command === 'core-address-create')?.tool.description;
    assert.equal(descriptions[candidates.indexOf('core-address-create')], summary);
    const other = results.serverCommands;
    assert.equal(
      other.descriptions[other.candidates.indexOf('Get.Thing/v2')],
      `Gets a "thing": 'quoted', $(not run) \`nor this\` after a tab`,
    );
    assert.equal(other.descriptions[other.candidates.indexOf('odd-summary')], "it's 100% odd \\ with a backslash");
  });

  it('keeps --flag= in front of a value, and values with spaces or colons whole', () => {
    assert.deepEqual(results.networkEquals.candidates, ['--network=testnet']);
    assert.deepEqual(results.evmNetworkPrefix.candidates, ['--network=base-fork']);
    assert.deepEqual(results.serverChoiceWithSpace.candidates, ['slow mode']);
    assert.deepEqual(results.serverChoiceWithColon.candidates, ['a:b']);
  });

  it('completes paths after --passphrase-file', () => {
    assert.deepEqual(results.passphraseFile.candidates, [join(fixture.home, 'passphrase.txt')]);
  });
});

describe('zsh completion (real zsh on a pty: TAB typed, compadd recorded)', { skip: NO_ZSH }, () => {
  let results: Record<Case, Completions>;
  before(() => {
    results = completeAll((lines) => zshCompletions(fixture.scripts.zsh, lines, fixture.env, fixture.dir, 'fpath'));
  });

  it('completes commands, flags, choices, wallets and other servers (autoloaded from $fpath)', () =>
    checkCommon(results, 'zsh'));

  it('shows summaries as descriptions', () => {
    const summary = fixture.commands.find(({ command }) => command === 'core-address-create')?.tool.description ?? '';
    assert.ok(
      results.corePrefix.descriptions.some((line) => line.startsWith('core-address-create') && line.endsWith(summary)),
      JSON.stringify(results.corePrefix.descriptions),
    );
  });

  it('completes the value after --flag=, and values with spaces or colons whole', () => {
    assert.deepEqual(results.networkEquals.candidates, ['testnet']);
    assert.deepEqual(results.evmNetworkPrefix.candidates, ['base-fork']);
    assert.deepEqual(results.serverChoiceWithSpace.candidates, ['slow mode']);
    assert.deepEqual(results.serverChoiceWithColon.candidates, ['a:b']);
  });

  it('completes paths after --passphrase-file', () => {
    assert.deepEqual(results.passphraseFile.candidates, ['passphrase.txt']);
  });

  it('works sourced after compinit too (source <(wallet completion zsh))', () => {
    const [core, wallets] = zshCompletions(
      fixture.scripts.zsh,
      [fixture.lines.corePrefix, fixture.lines.walletId],
      fixture.env,
      fixture.dir,
      'source',
    );
    assert.deepEqual(sorted(core?.candidates ?? []), coreCommands());
    assert.deepEqual(sorted(wallets?.candidates ?? []), WALLET_CANDIDATES);
  });
});

describe('the data directory without WALLET_HOME', () => {
  /** The fixture's environment without WALLET_HOME. */
  const envWithoutHome = (): Record<string, string> => {
    const { WALLET_HOME: _unset, ...env } = fixture.env;
    return env;
  };
  const line = (): string[] => [fixture.lines.walletId];
  it('is $XDG_DATA_HOME/wallet, else ~/.local/share/wallet (bash)', () => {
    const env = envWithoutHome();
    const xdg = join(fixture.dir, 'xdg-bash');
    writeKeystore(join(xdg, 'wallet'));
    assert.deepEqual(
      sorted(
        bashCompletions(fixture.scripts.bash, line(), { ...env, XDG_DATA_HOME: xdg }, fixture.dir)[0]?.candidates ?? [],
      ),
      WALLET_CANDIDATES,
    );
    writeKeystore(join(fixture.userHome, '.local', 'share', 'wallet'));
    assert.deepEqual(
      sorted(bashCompletions(fixture.scripts.bash, line(), env, fixture.dir)[0]?.candidates ?? []),
      WALLET_CANDIDATES,
    );
  });
  it('is $XDG_DATA_HOME/wallet (fish)', { skip: NO_FISH }, () => {
    const env = envWithoutHome();
    const xdg = join(fixture.dir, 'xdg-fish');
    writeKeystore(join(xdg, 'wallet'));
    assert.deepEqual(
      sorted(
        fishCompletions(fixture.scripts.fish, line(), { ...env, XDG_DATA_HOME: xdg }, fixture.dir)[0]?.candidates ?? [],
      ),
      WALLET_CANDIDATES,
    );
  });
});

describe('TAB never runs node', () => {
  it('left no mark from the fake node and wallet first on PATH', () => {
    assert.ok(existsSync(join(fixture.dir, 'bin', 'node')), 'the fake node is in place');
    assert.ok(!existsSync(fixture.marker), 'a completion ran node or wallet');
  });
});

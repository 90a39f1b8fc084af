import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { schemasBuilt } from '../../src/tools/define.js';
import { ALL_TOOLS } from '../../src/tools/index.js';
import { BUILTINS_MARKER, INITS_MARKER, TWIN_FLAG } from '../helpers/bundle-inits.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { findPostgres, startPostgres, type PgCluster } from '../helpers/postgres.js';
import { FIXTURE_SERVER, ROOT, WALLET_BIN } from '../helpers/paths.js';

/**
 * A command pays at start-up for every module it initialises, so each loads only what it uses
 * (docs/PERFORMANCE.md): checked on the bundle, not the sources, since a static import of one name
 * from a big library initialises all of it there. On a twin of dist/wallet.cjs, built from the
 * same modules with the same options (src/startup/bundle-options.mjs) but its identifiers kept: the
 * shipped bundle's are minified, and with them the paths its lazy modules are known by. Which
 * modules are lazy, and what initialises them, is the same in both.
 */
const BUNDLE = join(ROOT, 'build', 'lazy-modules', 'wallet.cjs');
const RUNNER = join(ROOT, 'build', 'test', 'helpers', 'bundle-inits.js');
/** viem, which the bundle requires from dist/viem.cjs (the module that does is `beside:viem.cjs#…`). */
const EVM_LIBRARIES = /^(node_modules\/(viem|ox|abitype)\/|beside:viem\.cjs#)/;
const DASH_TX_LIBRARY = /^node_modules\/@scure\/btc-signer\//;
// The chain backends (core-rpc, Insight, EVM JSON-RPC) and their response schemas: for calls that ask a node.
const BACKENDS = /^dist\/domain\/net\//;
const BUILT_IN_SERVER = /^dist\/(mcp\/(server|in-process|setup)|tools|domain)\//;
const X402 = /^(node_modules\/@x402\/|dist\/domain\/x402\/|beside:x402\.cjs#)/;
// node-postgres and the state store's PostgreSQL backend: only with a state URL set.
const POSTGRES = /^(node_modules\/(pg|pg-[a-z-]+|pgpass|postgres-[a-z-]+)\/|dist\/domain\/state\/pg\/|beside:pg\.cjs#)/;
// The one module that imports Dash Platform's SDK (which the bundle leaves out: 27 MB with its wasm).
const PLATFORM_SDK = /^dist\/domain\/platform\/sdk\.js/;
const AJV =
  /^node_modules\/(@modelcontextprotocol\/(server|client)\/dist\/(ajvProvider|validators\/ajv)|ajv\/|ajv-formats\/)/;
const ANVIL_ACCOUNT = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
// secp256k1, BIP32/BIP39, the wallets' seeds and the HD modules: for calls that derive or sign.
const CURVE_AND_HD =
  /^(node_modules\/(@noble\/curves|@scure\/bip32|@scure\/bip39\/index)|dist\/domain\/(secp256k1|wallet\/(seed|wallets)|dash\/hd|evm\/hd)\.js)/;
// What derives from a seed or signs: bip39, bip32 and noble's own secp256k1 (which probes Web
// Crypto's RNG as it loads), and the modules of ours that use them.
const SEED_AND_SIGNING =
  /^(node_modules\/(@noble\/curves\/secp256k1|@scure\/bip32|@scure\/bip39\/index)|dist\/domain\/(secp256k1|wallet\/seed|dash\/hd|evm\/hd)\.js)/;
const SDK_CLIENT = /^(node_modules\/@modelcontextprotocol\/client\/|dist\/mcp\/client\.js)/;

describe('start-up: a command initialises only the modules it uses', () => {
  let home: string;
  let passphraseFile: string;
  before(() => {
    // In a child: the digests build every tool's schemas, which this process must not (below).
    const twin = spawnSync(process.execPath, [RUNNER, TWIN_FLAG, BUNDLE], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(twin.status, 0, twin.stderr);
    home = tempHome();
    passphraseFile = passphraseFileIn(home, 'lazy-modules test passphrase');
    const created = spawnSync(
      process.execPath,
      [
        WALLET_BIN,
        'core-wallet-create',
        '--alias',
        'main',
        '--network',
        'testnet',
        '--passphrase-file',
        passphraseFile,
      ],
      { env: { ...process.env, WALLET_HOME: home, NO_COLOR: '1' }, encoding: 'utf8', timeout: 60_000 },
    );
    assert.equal(created.status, 0, created.stderr);
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  /** The modules a command initialised; it must succeed unless `refused` (the exit code it ends with). */
  function initialised(args: string[], refused?: number, env: Record<string, string> = {}): string[] {
    return probed(args, INITS_MARKER, refused, env);
  }

  /** What the probe lists after `marker` for a command run on the twin. */
  function probed(args: string[], marker: string, refused?: number, env: Record<string, string> = {}): string[] {
    const run = spawnSync(process.execPath, [RUNNER, BUNDLE, ...args], {
      env: { ...process.env, WALLET_HOME: home, NO_COLOR: '1', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, refused ?? 0, run.stderr);
    const line = run.stderr.split('\n').find((text) => text.startsWith(marker));
    assert.ok(line, `no ${marker.trim()} line: ${run.stderr}`);
    return JSON.parse(line.slice(marker.length)) as string[];
  }

  it('sees the EVM library when an EVM tool runs (the probe works)', () => {
    // A well-formed signature of nobody's: valid is false (exit 1), after viem recovered its signer.
    const signature = `0x${'11'.repeat(64)}1b`;
    const modules = initialised(
      ['evm-message-verify', '--address', ANVIL_ACCOUNT, '--message', 'lazy', '--signature', signature, '--json'],
      1,
    );
    assert.ok(
      modules.some((path) => EVM_LIBRARIES.test(path)),
      'viem not seen: the probe misses modules',
    );
    assert.ok(modules.some((path) => path.startsWith('dist/mcp/server.js')));
  });

  it("zod's messages come in English, without its other translations", () => {
    const args = ['core-address-validate', '--args-json', '{"address":"x","network":"foo"}'];
    const modules = initialised(args, 2);
    assert.ok(modules.includes('node_modules/zod/v4/locales/en.js'), 'English not seen: the probe misses modules');
    assert.deepEqual(
      modules.filter((path) => path.startsWith('node_modules/zod/v4/locales/') && !path.endsWith('/en.js')),
      [],
    );
    const refused = spawnSync(process.execPath, [WALLET_BIN, ...args], {
      env: { ...process.env, WALLET_HOME: home, NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(refused.status, 2, refused.stderr);
    assert.match(
      refused.stderr,
      /Invalid argument 'network': Invalid option: expected one of "mainnet"\|"testnet"\|"regtest"/,
    );
  });

  it('listing EVM accounts initialises no viem, curve or HD derivation (the addresses are stored)', () => {
    const modules = initialised(['evm-accounts-list', '--json']);
    assert.ok(modules.some((path) => path.startsWith('dist/domain/evm/accounts.js')));
    assert.deepEqual(
      modules.filter((path) => EVM_LIBRARIES.test(path) || CURVE_AND_HD.test(path)),
      [],
    );
  });

  it('initialises the x402 packages only for evm_x402_fetch', () => {
    // Refused for its http URL, after the tool loaded its domain module: the probe sees x402 there.
    const fetching = initialised(
      [
        'evm-x402-fetch',
        '--address',
        'nobody',
        '--resource-url',
        'http://example.com/report',
        '--token',
        '0x5FbDB2315678afecb367f032d93F642f64180aa3',
        '--max-price',
        '1',
        '--network',
        'local',
        '--yes',
      ],
      2,
    );
    assert.ok(
      fetching.some((path) => X402.test(path)),
      'x402 not seen: the probe misses modules',
    );
    for (const args of [
      ['evm-accounts-list', '--json'],
      ['network-info', '--json'],
    ]) {
      assert.deepEqual(
        initialised(args).filter((path) => X402.test(path)),
        [],
        args[0],
      );
    }
  });

  it('initialises node-postgres only where a state store is set', () => {
    // Nothing listens on port 1: the store is unreachable, BUSY (exit 5), after pg loaded.
    const unreachable = { WALLET_STATE_URL: 'postgres://wallet@127.0.0.1:1/wallet' };
    assert.ok(
      initialised(['state', 'status'], 5, unreachable).some((path) => POSTGRES.test(path)),
      'node-postgres not seen: the probe misses modules',
    );
    for (const args of [
      ['state', 'status'],
      ['evm-accounts-list', '--json'],
      ['network-info', '--json'],
    ]) {
      assert.deepEqual(
        initialised(args).filter((path) => POSTGRES.test(path)),
        [],
        args.join(' '),
      );
    }
  });

  it('reaches the Platform SDK only for a platform_* call', () => {
    // Nothing listens at port 9 (discard): the call fails to connect, after loading the module.
    const local = { dapi_addresses: ['http://127.0.0.1:9'], quorum_url: 'http://127.0.0.1:9' };
    writeFileSync(join(home, 'config.json'), JSON.stringify({ platform: { networks: { local } } }), { mode: 0o600 });
    const identity = '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi';
    const platform = initialised(
      ['platform-identity-balance-get', '--identity-id', identity, '--network', 'local', '--json'],
      1,
    );
    assert.ok(
      platform.some((path) => PLATFORM_SDK.test(path)),
      'the Platform SDK module not seen: the probe misses modules',
    );
    for (const args of [
      ['evm-accounts-list', '--json'],
      ['network-info', '--json'],
      ['core-address-validate', '--address', 'yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt', '--json'],
    ]) {
      assert.deepEqual(
        initialised(args).filter((path) => PLATFORM_SDK.test(path)),
        [],
        args[0],
      );
    }
  });

  for (const args of [
    ['core-address-create', '--wallet-id', 'main', '--network', 'testnet', '--json'],
    ['core-address-validate', '--address', 'yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt', '--json'],
    ['network-info', '--json'],
  ]) {
    it(`a Dash or meta call (${args[0]}) initialises neither viem, @scure/btc-signer nor a chain backend`, () => {
      const modules = initialised(args);
      assert.deepEqual(
        modules.filter((path) => EVM_LIBRARIES.test(path) || DASH_TX_LIBRARY.test(path) || BACKENDS.test(path)),
        [],
      );
    });
  }

  it('checking an address or reading the configuration initialises no curve, HD derivation or keystore', () => {
    for (const args of [
      ['core-address-validate', '--address', 'yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt', '--json'],
      ['network-info', '--json'],
    ]) {
      assert.deepEqual(
        initialised(args).filter((path) => CURVE_AND_HD.test(path)),
        [],
        args[0],
      );
    }
    // The probe sees them where they are used.
    const created = initialised(['core-address-create', '--wallet-id', 'main', '--network', 'testnet', '--json']);
    assert.ok(created.includes('dist/domain/dash/public-derivation.js'), created.join(' '));
    assert.ok(created.includes('node_modules/@noble/curves/abstract/weierstrass.js'), created.join(' '));
  });

  it('handing out an address derives from the xpub alone: no seed, bip32, signing curve or Web Crypto', () => {
    const args = ['core-address-create', '--wallet-id', 'main', '--network', 'testnet', '--json'];
    assert.deepEqual(
      initialised(args).filter((path) => SEED_AND_SIGNING.test(path)),
      [],
    );
    const builtins = probed(args, BUILTINS_MARKER);
    assert.ok(builtins.includes('crypto'), builtins.join(' '));
    assert.deepEqual(
      builtins.filter((name) => /webcrypto/.test(name)),
      [],
    );
  });

  it('checking an address or reading the configuration loads no node:crypto (nothing is encrypted or written)', () => {
    for (const args of [
      ['core-address-validate', '--address', 'yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt', '--json'],
      ['network-info', '--json'],
    ]) {
      assert.deepEqual(
        probed(args, BUILTINS_MARKER).filter((name) => /crypto/.test(name)),
        [],
        args[0],
      );
    }
    // The probe sees it where it is used: handing out an address writes the keystore.
    const created = probed(
      ['core-address-create', '--wallet-id', 'main', '--network', 'testnet', '--json'],
      BUILTINS_MARKER,
    );
    assert.ok(created.includes('crypto'), created.join(' '));
  });

  it('a tool call writing to pipes makes no stdio stream and asks no thread pool: no net, tty, fs/promises', () => {
    // The probe's stdout and stderr are pipes. process.stdout of a pipe is a socket (net, streams);
    // the CLI writes its output with writeSync instead (src/cli/io.ts), and reads and writes its
    // own files synchronously (src/shared/private-files.ts).
    for (const args of [
      ['core-address-create', '--wallet-id', 'main', '--network', 'testnet', '--json'],
      ['core-address-validate', '--address', 'yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt', '--json'],
      ['network-info', '--json'],
      ['evm-accounts-list', '--json'],
    ]) {
      assert.deepEqual(
        probed(args, BUILTINS_MARKER).filter((name) => /^(net|tty|fs\/promises|timers\/promises)$/.test(name)),
        [],
        args[0],
      );
    }
  });

  it('signing a message, discovering addresses and importing a wallet leave @scure/btc-signer alone', () => {
    const issued = JSON.parse(
      spawnSync(
        process.execPath,
        [WALLET_BIN, 'core-address-create', '--wallet-id', 'main', '--network', 'testnet', '--json'],
        { env: { ...process.env, WALLET_HOME: home, NO_COLOR: '1' }, encoding: 'utf8', timeout: 60_000 },
      ).stdout,
    ) as { address: string };
    const mnemonicFile = join(home, 'mnemonic');
    writeFileSync(mnemonicFile, `${'abandon '.repeat(11)}about\n`, { mode: 0o600 });
    // No node listens on port 1: discovery fails (exit 1) after its modules have loaded.
    const noNode = { WALLET_CORE_TESTNET_URL: 'http://127.0.0.1:1' };
    const runs: Array<{ modules: string[]; what: string }> = [
      {
        what: 'core-message-sign',
        modules: initialised([
          'core-message-sign',
          '--wallet-id',
          'main',
          '--network',
          'testnet',
          '--address',
          issued.address,
          '--message',
          'lazy',
          '--passphrase-file',
          passphraseFile,
          '--json',
        ]),
      },
      {
        what: 'core-addresses-discover',
        modules: initialised(['core-addresses-discover', '--wallet-id', 'main', '--network', 'testnet'], 1, noNode),
      },
      {
        what: 'core-wallet-import',
        modules: initialised(
          [
            'core-wallet-import',
            '--alias',
            'imported',
            '--network',
            'testnet',
            '--mnemonic-file',
            mnemonicFile,
            '--passphrase-file',
            passphraseFile,
            '--json',
          ],
          0,
          noNode,
        ),
      },
    ];
    for (const { what, modules } of runs) {
      assert.ok(
        modules.some((path) => path.startsWith('dist/domain/dash/')),
        `${what}: no Dash domain module seen`,
      );
      assert.deepEqual(
        modules.filter((path) => DASH_TX_LIBRARY.test(path)),
        [],
        what,
      );
    }
    // Signing and importing do derive from the seed: the probe sees it there.
    for (const { what, modules } of runs.filter((run) => run.what !== 'core-addresses-discover')) {
      for (const module of ['node_modules/@scure/bip32/index.js', 'dist/domain/secp256k1.js']) {
        assert.ok(modules.includes(module), `${what}: ${module} not seen`);
      }
    }
  });

  it('a call on the built-in server goes through the server without the SDK client or Ajv', () => {
    for (const args of [
      ['core-address-validate', '--address', 'yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt', '--json'],
      ['evm-accounts-list', '--json'],
    ]) {
      const modules = initialised(args);
      assert.ok(
        modules.some((path) => path.startsWith('dist/mcp/server.js')),
        args[0],
      );
      assert.deepEqual(
        modules.filter((path) => SDK_CLIENT.test(path) || AJV.test(path)),
        [],
        args[0],
      );
    }
  });

  it("a call builds its own tool's zod schemas and no other tool's", async () => {
    // In this process (the CLI run in-process): no test before this one has read a tool's schemas.
    assert.deepEqual(ALL_TOOLS.filter(schemasBuilt), []);
    const validated = await wallet(
      ['core-address-validate', '--address', 'yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt', '--json'],
      { home },
    );
    assert.equal(validated.code, 0, validated.stderr);
    assert.equal((JSON.parse(validated.stdout) as { valid: boolean }).valid, true);
    assert.deepEqual(
      ALL_TOOLS.filter(schemasBuilt).map((tool) => tool.name),
      ['core_address_validate'],
    );
  });

  it('--help and --version initialise neither the MCP SDK nor the server', () => {
    for (const args of [['--help'], ['--version']]) {
      const modules = initialised(args);
      assert.deepEqual(
        modules.filter(
          (path) => path.startsWith('node_modules/') && !/^node_modules\/(yargs-parser|shell-quote)\//.test(path),
        ),
        [],
        args[0],
      );
      assert.deepEqual(
        modules.filter((path) => BUILT_IN_SERVER.test(path)),
        [],
        args[0],
      );
    }
  });

  it('a --server call initialises neither the built-in server, its tools, their libraries, nor Ajv', () => {
    const modules = initialised(['--server', `"${process.execPath}" "${FIXTURE_SERVER}"`, 'shapes-echo', '--id', '1']);
    assert.ok(modules.some((path) => path.startsWith('node_modules/@modelcontextprotocol/client/')));
    assert.deepEqual(
      modules.filter(
        (path) =>
          BUILT_IN_SERVER.test(path) || EVM_LIBRARIES.test(path) || DASH_TX_LIBRARY.test(path) || AJV.test(path),
      ),
      [],
    );
  });
});

const pgBin = findPostgres();
if (!pgBin) {
  console.error(
    '\n!!! SKIPPING the start-up test with a PostgreSQL state store: initdb and pg_ctl are not installed.\n!!! .ci/run installs them (apt-get install -y postgresql); install it to run this test.\n',
  );
}

describe('start-up with a PostgreSQL state store', { skip: pgBin ? false : 'no PostgreSQL' }, () => {
  let pg: PgCluster;
  let home: string;
  let env: Record<string, string>;
  before(async () => {
    const twin = spawnSync(process.execPath, [RUNNER, TWIN_FLAG, BUNDLE], { encoding: 'utf8', timeout: 120_000 });
    assert.equal(twin.status, 0, twin.stderr);
    pg = await startPostgres(pgBin ?? '');
    home = tempHome();
    env = { PGPASSWORD: pg.password, WALLET_STATE_URL: pg.url };
    const migrated = await wallet(['state', 'migrate'], { env: { ...env, WALLET_HOME: home } });
    assert.equal(migrated.code, 0, migrated.stderr);
  });
  after(() => {
    pg?.remove();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('a call that opens the store reconciles nothing, and loads neither reconciliation nor viem, with nothing left', () => {
    // A payment recorded in the sent log as it went out: nothing for reconciliation to ask a node about.
    pg.sql(
      `INSERT INTO wallet_evm_nonces (chain_id, address, nonce, broadcast_at, spend_key, hash)
         VALUES (31337, '${ANVIL_ACCOUNT.toLowerCase()}', 0, now(), 'k', '0x${'ab'.repeat(32)}');
       INSERT INTO wallet_evm_sent (chain_id, hash, from_address, record)
         VALUES (31337, '0x${'ab'.repeat(32)}', '${ANVIL_ACCOUNT.toLowerCase()}', '{}')`,
    );
    const run = spawnSync(process.execPath, [RUNNER, BUNDLE, 'core-wallets-list', '--json'], {
      env: { ...process.env, ...env, WALLET_HOME: home, NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(run.status, 0, run.stderr);
    const line = run.stderr.split('\n').find((text) => text.startsWith(INITS_MARKER));
    assert.ok(line, run.stderr);
    const modules = JSON.parse(line.slice(INITS_MARKER.length)) as string[];
    assert.ok(
      modules.some((path) => POSTGRES.test(path)),
      'node-postgres not seen: the call did not open the store',
    );
    assert.deepEqual(
      modules.filter((path) => path === 'dist/domain/evm/reconcile.js' || EVM_LIBRARIES.test(path)),
      [],
    );
  });
});

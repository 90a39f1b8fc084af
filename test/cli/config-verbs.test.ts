/**
 * `wallet config` and `wallet networks add` (issue 22): configuration without editing JSON,
 * validated as the loader reads the file, against the fake Dash backends and a real anvil.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startDashBackends, type DashBackends } from '../fixtures/dash-backends.js';
import { ANVIL_FIRST_ACCOUNT, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { cliHarness, type CliHarness } from '../helpers/cli-harness.js';

/** A CLI verb of its own (no passphrase, no --yes: it takes neither). */
const verb = (cli: CliHarness, argv: string[], stdin?: string) =>
  cli.run(argv, { passphrase: 'none', yes: false, ...(stdin === undefined ? {} : { stdin }) });
const verbJson = async <T>(cli: CliHarness, argv: string[]): Promise<T> => {
  const result = await verb(cli, [...argv, '--json']);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as T;
};

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('wallet config', () => {
  let cli: CliHarness;
  const configText = (): string => {
    try {
      return readFileSync(join(cli.home, 'config.json'), 'utf8');
    } catch {
      return '';
    }
  };
  before(() => {
    cli = cliHarness({}, ['s3cret']);
  });
  after(() => cli.remove());

  it('sets, gets, lists and unsets a key; the file is owner-only JSON the loader reads', async () => {
    const set = await verb(cli, ['config', 'set', 'core.default_network', 'regtest']);
    assert.equal(set.code, 0, set.stderr);
    assert.equal(set.stdout, 'core.default_network = regtest\n');
    assert.equal((await verb(cli, ['config', 'get', 'core.default_network'])).stdout, 'regtest\n');
    const info = await cli.json<{ default_core_network: string }>(['network-info']);
    assert.equal(info.default_core_network, 'regtest');
    const list = await verbJson<{ settings: { key: string; value: string }[] }>(cli, ['config', 'list']);
    assert.deepEqual(
      list.settings.map((entry) => [entry.key, entry.value]),
      [['core.default_network', 'regtest']],
    );
    assert.equal(
      (await verb(cli, ['config', 'unset', 'core.default_network'])).stdout,
      'core.default_network removed\n',
    );
    assert.equal(configText(), '{}\n');
  });

  it('refuses a bad value naming the key, leaving the file byte for byte', async () => {
    await verb(cli, ['config', 'set', 'evm.networks.local.url', 'http://127.0.0.1:9545']);
    const before = configText();
    for (const [key, value, says] of [
      [
        'evm.networks.local.url',
        'ftp://127.0.0.1',
        /config key evm\.networks\.local\.url refused: .*invalid at evm\.networks\.local\.url/,
      ],
      ['core.networks.testnet.backend', 'electrum', /config key core\.networks\.testnet\.backend refused/],
      ['evm.default_network', 'nosuch', /config key evm\.default_network refused: The default evm network 'nosuch'/],
      [
        'evm.networks.base.url',
        'https://base.example',
        /config key evm\.networks\.base\.url refused: .*'base' has no chain_id/,
      ],
      ['evm.networks.sepolia.chain_id', '5', /'sepolia' is a built-in EVM network/],
      ['core.networks.mainnet.policy.max_fee_duffs', '1000', /spending policy, which is edited by hand/],
      ['no.such.key', 'x', /Unknown config key no\.such\.key/],
    ] as const) {
      const result = await verb(cli, ['config', 'set', key, value]);
      assert.equal(result.code, 2, `${key}: ${result.stderr}`);
      assert.match(result.stderr, says);
      assert.equal(result.stdout, '');
      assert.equal(configText(), before, `${key}: file unchanged`);
    }
  });

  it('lists hand-edited policy keys, and masks credentials given on stdin', async () => {
    writeFileSync(
      join(cli.home, 'config.json'),
      JSON.stringify({ core: { networks: { testnet: { policy: { max_fee_duffs: '10000' } } } } }),
      { mode: 0o600 },
    );
    const set = await verb(
      cli,
      ['config', 'set', 'core.networks.testnet.url', '-'],
      'http://user:s3cret@127.0.0.1:19998\n',
    );
    assert.equal(set.code, 0, set.stderr);
    assert.ok(!set.stdout.includes('s3cret'));
    const list = await verb(cli, ['config', 'list']);
    assert.match(list.stdout, /core\.networks\.testnet\.policy\.max_fee_duffs\s+10000\s+by hand \(policy\)/);
    assert.match(list.stdout, /core\.networks\.testnet\.url\s+http:\/\/\*\*\*@127\.0\.0\.1:19998\/\s+config set/);
    assert.ok(!list.stdout.includes('s3cret'));
    assert.match(configText(), /"max_fee_duffs": "10000"/, 'the policy is kept');
  });

  it('refuses an endpoint URL with a user or password on the command line, changing nothing', async () => {
    const before = configText();
    const attempts: [string[], RegExp][] = [
      [
        ['config', 'set', 'core.networks.mainnet.url', 'http://user:s3cret@127.0.0.1:9998'],
        /config set core\.networks\.mainnet\.url -/,
      ],
      [
        ['config', 'set', 'core.networks.mainnet.url', 'insight+https://tok3n@insight.example'],
        /config set core\.networks\.mainnet\.url -/,
      ],
      [['networks', 'add', 'base', '--rpc-url', 'https://user:s3cret@base.example/rpc'], /--rpc-url -/],
      [['--endpoint', 'evm.local=http://user:s3cret@127.0.0.1:8545', 'network-info'], /WALLET_EVM_LOCAL_URL=<url>/],
      [['serve', '--endpoint', 'core.regtest=http://rpc:s3cret@127.0.0.1:19443'], /WALLET_CORE_REGTEST_URL=<url>/],
      // The backend's prefix, and no `//`: still the http URL the wallet would use, password and all.
      [
        ['--endpoint', 'core.mainnet=core-rpc+http:rpc:s3cret@127.0.0.1:9998', 'network-info'],
        /WALLET_CORE_MAINNET_URL/,
      ],
    ];
    for (const [argv, hint] of attempts) {
      const refused = await verb(cli, argv);
      assert.equal(refused.code, 2, `${argv.join(' ')}: ${refused.stderr}`);
      assert.match(refused.stderr, /a URL with a user or password on the command line/);
      assert.match(refused.stderr, hint);
      assert.ok(!refused.stderr.includes('s3cret') && !refused.stderr.includes('tok3n'), 'the secret is not echoed');
      assert.equal(refused.stdout, '');
    }
    assert.equal(configText(), before, 'config.json unchanged');
    // The same URL on stdin is the way, and a URL without credentials on the command line is fine.
    const piped = await verb(
      cli,
      ['config', 'set', 'core.networks.mainnet.url', '-'],
      'http://user:s3cret@127.0.0.1:9998\n',
    );
    assert.equal(piped.code, 0, piped.stderr);
    const plain = await verb(cli, ['config', 'set', 'core.networks.mainnet.url', 'http://127.0.0.1:9998']);
    assert.equal(plain.code, 0, plain.stderr);
    await verb(cli, ['config', 'unset', 'core.networks.mainnet.url']);
  });

  it('takes a Dash endpoint with its backend named first, as the environment does', async () => {
    const set = await verb(cli, [
      'config',
      'set',
      'core.networks.testnet.url',
      'insight+https://insight.example/insight-api',
    ]);
    assert.equal(set.code, 0, set.stderr);
    const networks = JSON.parse(configText()) as {
      core: { networks: { testnet: { url: string; backend: string } } };
    };
    assert.equal(networks.core.networks.testnet.url, 'https://insight.example/insight-api');
    assert.equal(networks.core.networks.testnet.backend, 'insight');
    const info = await verbJson<{ networks: { chain: string; network: string; backend: string; endpoint: string }[] }>(
      cli,
      ['network-info'],
    );
    const testnet = info.networks.find((network) => network.chain === 'core' && network.network === 'testnet');
    assert.equal(testnet?.backend, 'insight');
    assert.equal(testnet?.endpoint, 'https://insight.example/insight-api');
    await verb(cli, ['config', 'unset', 'core.networks.testnet.url']);
    await verb(cli, ['config', 'unset', 'core.networks.testnet.backend']);
  });

  it('default_wallet must name a wallet of the keystore', async () => {
    const before = configText();
    const missing = await verb(cli, ['config', 'set', 'default_wallet', 'main']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /WALLET_NOT_FOUND: No wallet 'main'/);
    assert.equal(configText(), before);
    const imported = await cli.run(
      ['core-wallet-import', '--alias', 'main', '--network', 'testnet', '--mnemonic-stdin', '--no-discover'],
      { stdin: ABANDON },
    );
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal((await verb(cli, ['config', 'set', 'default_wallet', 'main'])).code, 0);
    assert.equal((await verb(cli, ['config', 'get', 'default_wallet'])).stdout, 'main\n');
  });
});

describe('a Dash endpoint set with wallet config', () => {
  let backends: DashBackends;
  let cli: CliHarness;
  before(async () => {
    backends = await startDashBackends({ chain: 'test' });
    cli = cliHarness({}, []);
  });
  after(async () => {
    cli.remove();
    await backends.close();
  });

  it('reads a balance through the Insight explorer it names', async () => {
    for (const [key, value] of [
      ['core.networks.testnet.backend', 'insight'],
      ['core.networks.testnet.url', backends.insightUrl],
    ] as const) {
      const result = await verb(cli, ['config', 'set', key, value]);
      assert.equal(result.code, 0, result.stderr);
    }
    const info = await cli.json<{ networks: { network: string; backend: string; endpoint_source: string }[] }>([
      'network-info',
      '--chain',
      'core',
    ]);
    assert.deepEqual(
      info.networks.filter((row) => row.network === 'testnet').map((row) => [row.backend, row.endpoint_source]),
      [['insight', 'config']],
    );
    await cli.run(
      ['core-wallet-import', '--alias', 'main', '--network', 'testnet', '--mnemonic-stdin', '--no-discover'],
      {
        stdin: ABANDON,
      },
    );
    const balance = await cli.json<{ backend: string; total_duffs: string }>([
      'core-balances-get',
      '--wallet-id',
      'main',
    ]);
    assert.deepEqual([balance.backend, balance.total_duffs], ['insight', '0']);
    assert.ok(backends.chain.requests.some((request) => request.api === 'insight'));
  });
});

describe('wallet networks add', () => {
  let anvil: AnvilNode;
  let cli: CliHarness;
  before(async () => {
    anvil = await startAnvil({ chainId: 8453 });
    cli = cliHarness({}, []);
  });
  after(async () => {
    cli.remove();
    await anvil.stop();
  });

  it('refuses a chain id the node does not serve, saving nothing', async () => {
    const result = await verb(cli, ['networks', 'add', 'base', '--rpc-url', anvil.url, '--chain-id', '1']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /NETWORK_MISMATCH: The node at .* serves chain id 8453, not 1; nothing was saved\./);
    assert.equal((await verb(cli, ['config', 'list', '--json'])).stdout, '{\n  "settings": []\n}\n');
  });

  it("takes the node's chain id, and the network then works for EVM tools", async () => {
    const added = await verbJson<{ chain_id: number; checked: boolean }>(cli, [
      'networks',
      'add',
      'base',
      '--rpc-url',
      anvil.url,
    ]);
    assert.deepEqual([added.chain_id, added.checked], [8453, true]);
    const balance = await cli.json<{ wei: string }>([
      'evm-balance-get',
      '--network',
      'base',
      '--address',
      ANVIL_FIRST_ACCOUNT,
    ]);
    assert.equal(balance.wei, '10000000000000000000000');
  });

  it('refuses a built-in network name', async () => {
    const result = await verb(cli, ['networks', 'add', 'sepolia', '--rpc-url', anvil.url]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /'sepolia' is a built-in EVM network/);
  });
});

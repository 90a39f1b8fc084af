import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfigText } from '../../src/domain/config/config-file.js';
import { resolveDataDir } from '../../src/shared/data-dir.js';
import {
  endpointEnvVar,
  parseEndpointOverride,
  redactUrl,
  resolveNetworks,
} from '../../src/domain/config/endpoints.js';
import { causeChain, WalletError } from '../../src/domain/errors.js';
import { PUBLIC_EVM_RPC_URLS, PUBLIC_INSIGHT_URLS } from '../../src/domain/config/networks.js';
import { hintingBackend } from '../../src/domain/net/endpoint-hint.js';
import { mainnet, sepolia } from 'viem/chains';
import { WalletServices } from '../../src/domain/services.js';
import { tempHome } from '../helpers/io.js';

const find = (networks: ReturnType<typeof resolveNetworks>['networks'], chain: string, network: string) =>
  networks.find((entry) => entry.chain === chain && entry.network === network);

describe('network endpoints', () => {
  it('layers default < config < env < flag', () => {
    const config = parseConfigText('{"evm":{"networks":{"local":{"url":"http://127.0.0.1:1"}}}}', 'c.json');
    assert.equal(find(resolveNetworks(config, {}).networks, 'evm', 'local')?.source, 'config');
    const env = { WALLET_EVM_LOCAL_URL: 'http://127.0.0.1:2' };
    const fromEnv = find(resolveNetworks(config, env).networks, 'evm', 'local');
    assert.deepEqual([fromEnv?.url, fromEnv?.source], ['http://127.0.0.1:2', 'env']);
    const flag = parseEndpointOverride('evm.local=http://127.0.0.1:3');
    const fromFlag = find(resolveNetworks(config, env, [flag]).networks, 'evm', 'local');
    assert.deepEqual([fromFlag?.url, fromFlag?.source], ['http://127.0.0.1:3', 'flag']);
  });
  it('marks one default per chain, from the config when given', () => {
    const settings = resolveNetworks(parseConfigText('{"core":{"default_network":"regtest"}}', 'c.json'), {});
    assert.equal(settings.defaults.core, 'regtest');
    assert.deepEqual(
      settings.networks.filter((entry) => entry.isDefault).map((entry) => `${entry.chain}.${entry.network}`),
      ['core.regtest', 'evm.sepolia'],
    );
  });
  it('takes the default network from WALLET_<CHAIN>_DEFAULT_NETWORK over the config', () => {
    const config = parseConfigText('{"core":{"default_network":"regtest"}}', 'c.json');
    const settings = resolveNetworks(config, {
      WALLET_CORE_DEFAULT_NETWORK: 'mainnet',
      WALLET_EVM_DEFAULT_NETWORK: 'mainnet',
    });
    assert.deepEqual(settings.defaults, { core: 'mainnet', evm: 'mainnet' });
    // Empty is unset (an MCP bundle's setting left blank).
    assert.equal(resolveNetworks(config, { WALLET_CORE_DEFAULT_NETWORK: '' }).defaults.core, 'regtest');
    assert.throws(
      () => resolveNetworks(config, { WALLET_CORE_DEFAULT_NETWORK: 'moon' }),
      (error: unknown) =>
        error instanceof WalletError &&
        error.code === 'INVALID_PARAM' &&
        /WALLET_CORE_DEFAULT_NETWORK names it: set one of mainnet, testnet, regtest/.test(error.hint ?? ''),
    );
  });
  it('adds user EVM networks, which need a chain id', () => {
    const ok = parseConfigText(
      '{"evm":{"networks":{"base":{"url":"https://base.example","chain_id":8453}}}}',
      'c.json',
    );
    assert.equal(find(resolveNetworks(ok, {}).networks, 'evm', 'base')?.chainId, 8453);
    const bad = parseConfigText('{"evm":{"networks":{"base":{"url":"https://base.example"}}}}', 'c.json');
    assert.throws(() => resolveNetworks(bad, {}), /'base' has no chain_id/);
  });
  it('names the env variable and never echoes a bad value', () => {
    assert.equal(endpointEnvVar('core', 'regtest'), 'WALLET_CORE_REGTEST_URL');
    assert.throws(
      () => resolveNetworks({}, { WALLET_CORE_REGTEST_URL: 'not a url secretpass' }),
      (error: unknown) =>
        error instanceof WalletError &&
        /WALLET_CORE_REGTEST_URL is not a valid URL/.test(error.message) &&
        !error.message.includes('secretpass'),
    );
  });
  it('redacts credentials', () => {
    assert.equal(redactUrl('http://user:pass@127.0.0.1:19443/'), 'http://***@127.0.0.1:19443/');
    assert.equal(redactUrl('http://127.0.0.1:8545'), 'http://127.0.0.1:8545');
    assert.equal(
      redactUrl('https://mainnet.infura.example/v3/0123456789abcdef0123456789abcdef?apikey=K2'),
      'https://mainnet.infura.example/v3/***?apikey=***',
    );
    // Only credentials: a harmless query stays readable (an Insight status check).
    assert.equal(
      redactUrl('https://insight.example/insight-api/status?q=getInfo'),
      'https://insight.example/insight-api/status?q=getInfo',
    );
    assert.equal(
      redactUrl('https://rpc.example/?chain=1&access_token=abc&x=0123456789abcdef0123'),
      'https://rpc.example/?chain=1&access_token=***&x=***',
    );
    // Anything not known to be harmless is hidden: short passwords, JWTs, ;-separated pairs, fragments.
    assert.equal(
      redactUrl('https://rpc.example/?pass=hunter2&p=s3&jwt=eyJhbGciOi.x.y&c=1;apikey=secret#access_token=xyz'),
      'https://rpc.example/?pass=***&p=***&jwt=***&c=***&apikey=***#***',
    );
    assert.equal(redactUrl('https://rpc.example/?chain=0123456789abcdef0123'), 'https://rpc.example/?chain=***');
    assert.equal(redactUrl('https://rpc.example/eth/mainnet'), 'https://rpc.example/eth/mainnet');
  });
  it('refuses malformed overrides and unknown networks', () => {
    assert.throws(
      () => parseEndpointOverride('evm:local=http://x'),
      /An endpoint override takes <chain>\.<network>=<url>/,
    );
    assert.throws(
      () => resolveNetworks({}, {}, [parseEndpointOverride('evm.nope=http://x')]),
      /Unknown network 'evm\.nope'/,
    );
  });
});

describe('public default endpoints', () => {
  const settings = resolveNetworks({}, {});
  const row = (chain: string, network: string) => {
    const entry = find(settings.networks, chain, network);
    return [entry?.backend, entry?.url, entry?.source];
  };
  it('reads Dash mainnet and testnet through public Insight explorers', () => {
    assert.deepEqual(row('core', 'mainnet'), ['insight', 'https://insight.dash.org/insight-api', 'public']);
    assert.deepEqual(row('core', 'testnet'), [
      'insight',
      'https://insight.testnet.networks.dash.org/insight-api',
      'public',
    ]);
    assert.equal(PUBLIC_INSIGHT_URLS.mainnet, 'https://insight.dash.org/insight-api');
  });
  it("reads EVM mainnet and sepolia through viem's own public RPC defaults", () => {
    assert.equal(PUBLIC_EVM_RPC_URLS.mainnet, mainnet.rpcUrls.default.http[0]);
    assert.equal(PUBLIC_EVM_RPC_URLS.sepolia, sepolia.rpcUrls.default.http[0]);
    assert.deepEqual(row('evm', 'mainnet'), ['evm-rpc', mainnet.rpcUrls.default.http[0], 'public']);
    assert.deepEqual(row('evm', 'sepolia'), ['evm-rpc', sepolia.rpcUrls.default.http[0], 'public']);
    assert.equal(settings.defaults.evm, 'sepolia');
  });
  it('keeps regtest and local on this machine', () => {
    assert.deepEqual(row('core', 'regtest'), ['core-rpc', 'http://127.0.0.1:19898', 'default']);
    assert.deepEqual(row('evm', 'local'), ['evm-rpc', 'http://127.0.0.1:8545', 'default']);
  });
  it("takes a URL of one's own as a Dash Core node unless a backend is named", () => {
    const byEnv = resolveNetworks({}, { WALLET_CORE_MAINNET_URL: 'http://u:p@127.0.0.1:9998' });
    assert.equal(find(byEnv.networks, 'core', 'mainnet')?.backend, 'core-rpc');
    const prefixed = resolveNetworks({}, { WALLET_CORE_MAINNET_URL: 'insight+https://explorer.example/insight-api' });
    assert.deepEqual(
      [find(prefixed.networks, 'core', 'mainnet')?.backend, find(prefixed.networks, 'core', 'mainnet')?.url],
      ['insight', 'https://explorer.example/insight-api'],
    );
    const fromConfig = resolveNetworks(
      parseConfigText('{"core":{"networks":{"testnet":{"url":"http://127.0.0.1:19998"}}}}', 'c.json'),
      {},
    );
    assert.deepEqual(
      [find(fromConfig.networks, 'core', 'testnet')?.backend, find(fromConfig.networks, 'core', 'testnet')?.source],
      ['core-rpc', 'config'],
    );
    const configInsight = parseConfigText('{"core":{"networks":{"testnet":{"backend":"insight"}}}}', 'c.json');
    const kept = resolveNetworks(configInsight, { WALLET_CORE_TESTNET_URL: 'https://explorer.example/insight-api' });
    assert.equal(find(kept.networks, 'core', 'testnet')?.backend, 'insight');
  });
  it("takes backend core-rpc alone as a node of one's own at Dash Core's port", () => {
    const config = parseConfigText('{"core":{"networks":{"mainnet":{"backend":"core-rpc"}}}}', 'c.json');
    const entry = find(resolveNetworks(config, {}).networks, 'core', 'mainnet');
    assert.deepEqual([entry?.backend, entry?.url, entry?.source], ['core-rpc', 'http://127.0.0.1:9998', 'default']);
  });
});

describe('BACKEND_UNAVAILABLE hints', () => {
  it("name the network's config key, environment variable and endpoint argument", async () => {
    const backend = hintingBackend(
      {
        read: () =>
          Promise.reject(
            new WalletError('BACKEND_UNAVAILABLE', 'Cannot reach https://x.example: ECONNREFUSED.', {
              hint: 'Check it.',
            }),
          ),
        refuse: () => Promise.reject(new WalletError('INVALID_PARAM', 'bad')),
      },
      'core',
      'testnet',
    );
    await assert.rejects(backend.read(), (error: unknown) => {
      assert.ok(error instanceof WalletError);
      assert.equal(error.code, 'BACKEND_UNAVAILABLE');
      assert.match(error.hint ?? '', /^Check it\. Set another endpoint: /);
      for (const part of [
        'core.networks.testnet.url',
        'WALLET_CORE_TESTNET_URL',
        '`endpoint: core.testnet=<url>`',
        'insight+https://',
      ]) {
        assert.ok(error.hint?.includes(part), part);
      }
      return true;
    });
    await assert.rejects(
      backend.refuse(),
      (error: unknown) => error instanceof WalletError && error.hint === undefined,
    );
  });
});

describe('cause chains', () => {
  it('name each cause with its system code and address, never a message that may quote input', () => {
    const system = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8545'), {
      code: 'ECONNREFUSED',
      syscall: 'connect',
      address: '127.0.0.1',
      port: 8545,
    });
    const fetchFailed = new TypeError('fetch failed', { cause: system });
    const top = new WalletError('BACKEND_UNAVAILABLE', 'Cannot reach http://127.0.0.1:8545.', { cause: fetchFailed });
    assert.equal(causeChain(top), 'TypeError <- Error ECONNREFUSED connect 127.0.0.1:8545');
    const quoting = new WalletError('INVALID_PARAM', 'bad', { cause: new Error('value was hunter2') });
    assert.equal(causeChain(quoting), 'Error');
  });
});

describe('config file', () => {
  it('names the bad field without echoing its value', () => {
    assert.throws(
      () => parseConfigText('{"core":{"networks":{"testnet":{"url":"ftp://u:hunter2@x"}}}}', '/d/config.json'),
      (error: unknown) =>
        error instanceof WalletError &&
        error.code === 'INVALID_PARAM' &&
        /core\.networks\.testnet\.url/.test(error.message) &&
        !error.message.includes('hunter2'),
    );
    assert.throws(() => parseConfigText('{"evm":{"bogus":1}}', 'c.json'), /invalid at evm/);
    assert.throws(() => parseConfigText('{', 'c.json'), /not valid JSON/);
  });
});

describe('data directory and services', () => {
  it('prefers WALLET_HOME, then the platform default', () => {
    assert.equal(resolveDataDir({ env: { WALLET_HOME: '/w' }, platform: 'linux', home: '/h' }), '/w');
    assert.equal(resolveDataDir({ env: {}, platform: 'linux', home: '/h' }), '/h/.local/share/wallet');
    assert.equal(resolveDataDir({ env: { XDG_DATA_HOME: '/x' }, platform: 'linux', home: '/h' }), '/x/wallet');
    assert.equal(resolveDataDir({ env: {}, platform: 'darwin', home: '/h' }), '/h/Library/Application Support/wallet');
  });
  it('is locked without a passphrase, and says how to unlock', async () => {
    await assert.rejects(
      () => new WalletServices({ dataDir: '/nonexistent' }).passphrase('unlock'),
      (error: unknown) =>
        error instanceof WalletError && error.code === 'WALLET_LOCKED' && /`passphrase_file`/.test(error.hint ?? ''),
    );
    assert.equal(await new WalletServices({ dataDir: '/nonexistent', passphrase: 'p' }).passphrase('unlock'), 'p');
  });
  it('an unknown network names the known ones and where another is added', async () => {
    const services = new WalletServices({ dataDir: tempHome() });
    await assert.rejects(
      () => services.network('evm', 'base-sepolia'),
      (error: unknown) =>
        error instanceof WalletError &&
        error.code === 'INVALID_PARAM' &&
        error.hint ===
          'Known evm networks: mainnet, sepolia, local. Another is added to config.json as evm.networks.<name>.url (with its chain_id).',
    );
    await assert.rejects(
      () => services.network('core', 'devnet-x'),
      (error: unknown) =>
        error instanceof WalletError && /^Known core networks: mainnet, testnet, regtest\. /.test(error.hint ?? ''),
    );
  });
  it('asks a passphrase source once, and refuses a short passphrase for a new wallet', async () => {
    const asked: string[] = [];
    const services = new WalletServices({
      dataDir: '/nonexistent',
      passphrase: (purpose) => {
        asked.push(purpose);
        return Promise.resolve('short');
      },
    });
    assert.equal(await services.passphrase('unlock'), 'short');
    assert.equal(await services.passphrase('unlock'), 'short');
    assert.deepEqual(asked, ['unlock']);
    await assert.rejects(() => services.passphrase('new'), /at least 8 characters/);
  });
});

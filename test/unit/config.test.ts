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
import { WalletError } from '../../src/domain/errors.js';
import { WalletServices } from '../../src/domain/services.js';

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
      'https://mainnet.infura.example/v3/***?***',
    );
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

// Dash Platform's networks from config.json: the SDK's defaults for mainnet and testnet, a network
// of one's own only with both its DAPI addresses and its quorum service, hints naming the keys,
// and `wallet config set` of those keys validated as the loader reads them.
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { listConfig, setConfigValue } from '../../src/domain/config/config-edit.js';
import { parseConfigText } from '../../src/domain/config/config-file.js';
import { platformNetwork, resolvePlatformNetworks } from '../../src/domain/platform/network.js';
import { creditsToDash } from '../../src/domain/platform/credits.js';
import { tempHome } from '../helpers/io.js';

describe('Platform networks', () => {
  it('mainnet and testnet through the SDK, testnet by default', () => {
    const networks = resolvePlatformNetworks({});
    assert.deepEqual(
      networks.map((entry) => [entry.network, entry.sdkNetwork, entry.source, entry.isDefault]),
      [
        ['mainnet', 'mainnet', 'public', false],
        ['testnet', 'testnet', 'public', true],
      ],
    );
    assert.equal(platformNetwork(networks, undefined).network, 'testnet');
  });

  it("a network of one's own needs its DAPI addresses and quorum service; a devnet by any other name", () => {
    const config = parseConfigText(
      JSON.stringify({
        platform: {
          networks: {
            local: { dapi_addresses: ['http://127.0.0.1:2443'] },
            dev7: { dapi_addresses: ['https://d.example:1443'], quorum_url: 'https://q.example' },
          },
        },
      }),
      'config.json',
    );
    const networks = resolvePlatformNetworks(config);
    assert.throws(
      () => platformNetwork(networks, 'local'),
      (error: { code?: string; hint?: string }) =>
        error.code === 'BACKEND_UNAVAILABLE' && /platform\.networks\.local\.quorum_url/.test(error.hint ?? ''),
    );
    assert.equal(platformNetwork(networks, 'dev7').sdkNetwork, 'devnet');
    assert.throws(() => platformNetwork(networks, 'nowhere'), { code: 'INVALID_PARAM' });
  });

  it('refuses a default network nobody configured, and a DAPI address that is not http(s)', () => {
    assert.throws(() => resolvePlatformNetworks({ platform: { default_network: 'local' } }), {
      code: 'INVALID_PARAM',
    });
    assert.throws(
      () =>
        parseConfigText(
          JSON.stringify({ platform: { networks: { local: { dapi_addresses: ['ftp://x'] } } } }),
          'config.json',
        ),
      { code: 'INVALID_PARAM' },
    );
  });

  it('wallet config sets the keys, DAPI addresses as a list', async () => {
    const home = tempHome();
    try {
      await setConfigValue(home, 'platform.networks.local.dapi_addresses', 'http://127.0.0.1:1, http://127.0.0.1:2');
      await setConfigValue(home, 'platform.networks.local.quorum_url', 'http://127.0.0.1:3');
      await setConfigValue(home, 'platform.default_network', 'local');
      await assert.rejects(setConfigValue(home, 'platform.default_network', 'elsewhere'), { code: 'INVALID_PARAM' });
      const file = JSON.parse(readFileSync(join(home, 'config.json'), 'utf8')) as {
        platform: { networks: { local: { dapi_addresses: string[] } } };
      };
      assert.deepEqual(file.platform.networks.local.dapi_addresses, ['http://127.0.0.1:1', 'http://127.0.0.1:2']);
      assert.ok((await listConfig(home)).every((entry) => entry.editable));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('credits in DASH: 10^11 credits a DASH, exact', () => {
    assert.equal(creditsToDash(150_000_000_000n), '1.5');
    assert.equal(creditsToDash(1n), '0.00000000001');
    assert.equal(creditsToDash(0n), '0');
  });
});

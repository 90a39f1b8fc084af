/**
 * network_info, through a real SDK client on the wallet's server (in memory): every network of a
 * chain and its endpoint, the endpoint's credentials redacted.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { tempHome } from '../../helpers/io.js';
import { localServer, type ToolCaller } from '../../helpers/mcp.js';
import { homeFor } from '../../helpers/platform-cli.js';

type Networks = { networks: { network: string; endpoint: string | null }[] };

describe('network_info', () => {
  let server: ToolCaller;
  before(async () => {
    server = await localServer({
      env: { WALLET_HOME: tempHome(), WALLET_CORE_REGTEST_URL: 'http://rpcuser:rpcpass@127.0.0.1:19443' },
      caller: 'agent',
      localOnly: false,
    });
  });
  after(() => server.close());

  it('calls a tool: structuredContent plus the same JSON as text, credentials redacted', async () => {
    const result = await server.client.callTool({ name: 'network_info', arguments: { chain: 'core' } });
    assert.equal(result.isError, undefined);
    const structured = result.structuredContent as Networks;
    assert.deepEqual(structured, JSON.parse((result.content[0] as { text: string }).text));
    assert.deepEqual(
      structured.networks.map((entry) => entry.network),
      ['mainnet', 'testnet', 'regtest'],
    );
    const regtest = structured.networks.find((entry) => entry.network === 'regtest');
    assert.equal(regtest?.endpoint, 'http://***@127.0.0.1:19443/');
    assert.ok(!JSON.stringify(result).includes('rpcpass'));
  });

  it('lists one chain with its chain ids, the default marked once, an endpoint set by the environment as such', async () => {
    type Entry = { chain: string; network: string; default: boolean; chain_id: number | null; endpoint_source: string };
    const { networks } = await server.call<{ networks: Entry[] }>('network_info', { chain: 'evm' });
    assert.ok(networks.length > 0);
    assert.deepEqual([...new Set(networks.map((entry) => entry.chain))], ['evm']);
    assert.equal(networks.find((entry) => entry.network === 'mainnet')?.chain_id, 1);
    assert.equal(networks.find((entry) => entry.network === 'sepolia')?.chain_id, 11155111);
    assert.equal(networks.filter((entry) => entry.default).length, 1);
    const { networks: core } = await server.call<{ networks: Entry[] }>('network_info', { chain: 'core' });
    assert.equal(core.find((entry) => entry.network === 'regtest')?.endpoint_source, 'env');
  });

  it('shows the Platform networks and where each endpoint comes from: a config.json network as such', async () => {
    const home = homeFor('http://127.0.0.1:1');
    const local = await localServer({ env: { WALLET_HOME: home } });
    try {
      const info = await local.call<{
        default_platform_network: string;
        networks: { network: string; quorum_url: string | null; endpoint_source: string }[];
      }>('network_info', { chain: 'platform' });
      assert.equal(info.default_platform_network, 'local');
      assert.deepEqual(
        info.networks.map((row) => [row.network, row.endpoint_source]),
        [
          ['mainnet', 'public'],
          ['testnet', 'public'],
          ['local', 'config'],
        ],
      );
      assert.equal(info.networks[2]?.quorum_url, 'http://127.0.0.1:1');
    } finally {
      await local.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

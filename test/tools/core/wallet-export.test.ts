/**
 * core_wallet_export, through a real SDK client on the wallet's servers (in memory): the owner's
 * own server gives back the mnemonic a wallet was made from; a server an agent speaks to does not
 * serve the tool at all.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ABANDON } from '../../helpers/dashcore-oracle.js';
import { tempHome } from '../../helpers/io.js';
import { localServer, type ToolCaller } from '../../helpers/mcp.js';

describe('core_wallet_export', () => {
  const home = tempHome();
  const passphrase = 'export test passphrase';
  let server: ToolCaller;
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: home }, passphrase });
  });
  after(() => server.close());

  it('gives the owner back the mnemonic and passphrase a wallet was imported with', async () => {
    await server.call('core_wallet_import', { alias: 'main', network: 'testnet', mnemonic: ABANDON, discover: false });
    const exported = await server.call<{ alias: string; mnemonic: string; mnemonic_passphrase: string }>(
      'core_wallet_export',
      { wallet_id: 'main' },
    );
    assert.deepEqual(exported.mnemonic.split(' '), ABANDON.split(' '));
    assert.equal(exported.mnemonic_passphrase, '');
    assert.equal(exported.alias, 'main');
  });

  it("is not served to an agent: `wallet serve`'s list has no such tool", async () => {
    const agent = await localServer({ env: { WALLET_HOME: home }, passphrase, caller: 'agent', localOnly: false });
    try {
      const { tools } = await agent.client.listTools();
      assert.ok(tools.length > 0);
      assert.ok(!tools.some((tool) => tool.name === 'core_wallet_export'));
    } finally {
      await agent.close();
    }
  });
});

/**
 * core_wallets_list, through a real SDK client on the wallet's own server (in memory): every wallet
 * of the keystore with what it holds in clear, never its mnemonic.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ABANDON } from '../../helpers/dashcore-oracle.js';
import { tempHome } from '../../helpers/io.js';
import { localServer, type ToolCaller } from '../../helpers/mcp.js';

type Listed = { wallets: { wallet_id: string; alias: string; network: string; receive_addresses: number }[] };

describe('core_wallets_list', () => {
  let server: ToolCaller;
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: tempHome() }, passphrase: 'list test passphrase' });
  });
  after(() => server.close());

  it('lists nothing in an empty keystore', async () => {
    assert.deepEqual((await server.call<Listed>('core_wallets_list', {})).wallets, []);
  });

  it('lists each wallet with its id, alias, network and address count, and no mnemonic', async () => {
    const created = await server.call<{ wallet_id: string }>('core_wallet_create', {
      alias: 'spending',
      network: 'testnet',
    });
    const imported = await server.call<{ wallet_id: string }>('core_wallet_import', {
      alias: 'savings',
      network: 'mainnet',
      mnemonic: ABANDON,
      discover: false,
    });
    await server.call('core_address_create', { wallet_id: 'spending' });
    const listed = await server.call<Listed>('core_wallets_list', {});
    const byAlias = new Map(listed.wallets.map((wallet) => [wallet.alias, wallet]));
    assert.deepEqual([...byAlias.keys()].sort(), ['savings', 'spending']);
    assert.equal(byAlias.get('spending')?.wallet_id, created.wallet_id);
    assert.equal(byAlias.get('spending')?.network, 'testnet');
    assert.equal(byAlias.get('spending')?.receive_addresses, 1);
    assert.equal(byAlias.get('savings')?.wallet_id, imported.wallet_id);
    assert.equal(byAlias.get('savings')?.network, 'mainnet');
    assert.ok(!JSON.stringify(listed).includes('abandon'));
  });
});

/**
 * core_addresses_list, through a real SDK client on the wallet's own server (in memory): the
 * addresses a wallet handed out, each at the path dashcore-lib derives it at, and nothing before.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ABANDON, testnetAddressAt } from '../../helpers/dashcore-oracle.js';
import { tempHome } from '../../helpers/io.js';
import { localServer, type ToolCaller } from '../../helpers/mcp.js';

type Listed = { wallet_id: string; network: string; addresses: { address: string; path: string }[] };

describe('core_addresses_list', () => {
  let server: ToolCaller;
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: tempHome() }, passphrase: 'addresses test passphrase' });
    await server.call('core_wallet_import', { alias: 'main', network: 'testnet', mnemonic: ABANDON, discover: false });
  });
  after(() => server.close());

  it('lists no address before one is handed out', async () => {
    assert.deepEqual((await server.call<Listed>('core_addresses_list', { wallet_id: 'main' })).addresses, []);
  });

  it('lists each address handed out, at the path dashcore-lib derives it at', async () => {
    for (let i = 0; i < 3; i += 1) await server.call('core_address_create', { wallet_id: 'main' });
    const listed = await server.call<Listed>('core_addresses_list', { wallet_id: 'main', chain: 'receive' });
    assert.equal(listed.network, 'testnet');
    assert.deepEqual(
      listed.addresses.map((row) => [row.address, row.path]),
      [0, 1, 2].map((index) => [testnetAddressAt(ABANDON, 0, index), `m/44'/1'/0'/0/${index}`]),
    );
    const change = await server.call<Listed>('core_addresses_list', { wallet_id: 'main', chain: 'change' });
    assert.deepEqual(change.addresses, []);
  });
});

/**
 * core_address_create, through a real SDK client on the wallet's own server (in memory): each call
 * hands out the next receive address, the one dashcore-lib derives at m/44'/1'/0'/0/i, without
 * the passphrase (from the account's public key alone).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ABANDON, testnetAddressAt } from '../../helpers/dashcore-oracle.js';
import { tempHome } from '../../helpers/io.js';
import { failureCode, localServer, type ToolCaller } from '../../helpers/mcp.js';

type Created = { address: string; path: string; index: number; wallet_id: string; network: string };

describe('core_address_create', () => {
  const home = tempHome();
  let server: ToolCaller;
  let walletId: string;
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: home }, passphrase: 'address test passphrase' });
    ({ wallet_id: walletId } = await server.call<{ wallet_id: string }>('core_wallet_import', {
      alias: 'main',
      network: 'testnet',
      mnemonic: ABANDON,
      discover: false,
    }));
  });
  after(() => server.close());

  it('hands out the next receive address, as dashcore-lib derives it', async () => {
    for (const index of [0, 1]) {
      const created = await server.call<Created>('core_address_create', { wallet_id: 'main' });
      assert.deepEqual(
        [created.address, created.path, created.index, created.wallet_id, created.network],
        [testnetAddressAt(ABANDON, 0, index), `m/44'/1'/0'/0/${index}`, index, walletId, 'testnet'],
      );
    }
  });

  it('needs no passphrase: a server without one hands out the next address too', async () => {
    const locked = await localServer({ env: { WALLET_HOME: home } });
    try {
      const created = await locked.call<Created>('core_address_create', { wallet_id: 'main' });
      assert.equal(created.address, testnetAddressAt(ABANDON, 0, 2));
    } finally {
      await locked.close();
    }
  });

  it('refuses a wallet the keystore does not hold: WALLET_NOT_FOUND', async () => {
    assert.equal(await failureCode(server.call('core_address_create', { wallet_id: 'nobody' })), 'WALLET_NOT_FOUND');
  });
});

/**
 * core_wallet_delete, through a real SDK client on the wallet's own server (in memory): it deletes
 * only the wallet whose fingerprint is typed out, and a wrong one deletes nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tempHome } from '../../helpers/io.js';
import { failureCode, localServer, type ToolCaller } from '../../helpers/mcp.js';

type Listed = { wallets: { alias: string }[] };

describe('core_wallet_delete', () => {
  let server: ToolCaller;
  let walletId: string;
  const aliases = async () =>
    (await server.call<Listed>('core_wallets_list', {})).wallets.map((wallet) => wallet.alias).sort();
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: tempHome() }, passphrase: 'delete test passphrase' });
    ({ wallet_id: walletId } = await server.call<{ wallet_id: string }>('core_wallet_create', {
      alias: 'old',
      network: 'testnet',
    }));
    await server.call('core_wallet_create', { alias: 'kept', network: 'testnet' });
  });
  after(() => server.close());

  it('refuses a fingerprint that is not the wallet’s (INVALID_PARAM), deleting nothing', async () => {
    const wrong = walletId === '00000000' ? '11111111' : '00000000';
    assert.equal(
      await failureCode(
        server.call('core_wallet_delete', { wallet_id: 'old', network: 'testnet', confirm_fingerprint: wrong }),
      ),
      'INVALID_PARAM',
    );
    assert.deepEqual(await aliases(), ['kept', 'old']);
  });

  it('deletes the wallet whose fingerprint is typed out, and only it', async () => {
    await server.call('core_wallet_delete', { wallet_id: 'old', network: 'testnet', confirm_fingerprint: walletId });
    assert.deepEqual(await aliases(), ['kept']);
    assert.equal(await failureCode(server.call('core_address_create', { wallet_id: 'old' })), 'WALLET_NOT_FOUND');
  });
});

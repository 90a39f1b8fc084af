/**
 * core_wallet_import, through a real SDK client on the wallet's own server (in memory): a BIP39
 * mnemonic becomes a wallet whose addresses are those dashcore-lib derives from it, and a
 * mnemonic that is none is refused, keeping nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ABANDON, testnetAddressAt } from '../../helpers/dashcore-oracle.js';
import { tempHome } from '../../helpers/io.js';
import { failureCode, localServer, type ToolCaller } from '../../helpers/mcp.js';

describe('core_wallet_import', () => {
  let server: ToolCaller;
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: tempHome() }, passphrase: 'import test passphrase' });
  });
  after(() => server.close());

  it("imports a mnemonic: the wallet's addresses are the ones dashcore-lib derives", async () => {
    const imported = await server.call<{ wallet_id: string; alias: string; network: string; discovery: string }>(
      'core_wallet_import',
      { alias: 'main', network: 'testnet', mnemonic: ABANDON, discover: false },
    );
    assert.deepEqual([imported.alias, imported.network, imported.discovery], ['main', 'testnet', 'skipped']);
    assert.match(imported.wallet_id, /^[0-9a-f]{8}$/);
    for (const index of [0, 1]) {
      const { address } = await server.call<{ address: string }>('core_address_create', { wallet_id: 'main' });
      assert.equal(address, testnetAddressAt(ABANDON, 0, index));
    }
  });

  it('refuses words that are no BIP39 mnemonic (a bad checksum), keeping no wallet', async () => {
    const broken = ABANDON.replace(/about$/, 'abandon');
    assert.equal(
      await failureCode(
        server.call('core_wallet_import', { alias: 'broken', network: 'testnet', mnemonic: broken, discover: false }),
      ),
      'INVALID_PARAM',
    );
    const { wallets } = await server.call<{ wallets: { alias: string }[] }>('core_wallets_list', {});
    assert.ok(!wallets.some((wallet) => wallet.alias === 'broken'));
  });
});

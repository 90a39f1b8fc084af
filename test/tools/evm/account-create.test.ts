/**
 * evm_account_create, through a real SDK client on the wallet's own server (in memory): a wallet's
 * EVM accounts are BIP44's m/44'/60'/0'/0/i of its seed, checked against viem's own HD derivation
 * of the same mnemonic, in order, each alias once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mnemonicToAccount } from 'viem/accounts';
import { tempHome } from '../../helpers/io.js';
import { failureCode, importTestnetMain, localServer, type ToolCaller } from '../../helpers/mcp.js';

/** Anvil's well-known mnemonic. */
const MNEMONIC = 'test test test test test test test test test test test junk';

type Created = { address: string; path: string; index: number; wallet_id: string; alias: string };

describe('evm_account_create', () => {
  let server: ToolCaller;
  let walletId: string;
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: tempHome() }, passphrase: 'evm create test passphrase' });
    walletId = await importTestnetMain(server, MNEMONIC);
  });
  after(() => server.close());

  it("derives the wallet's next account, the address viem derives at m/44'/60'/0'/0/i", async () => {
    for (const index of [0, 1]) {
      const created = await server.call<Created>('evm_account_create', { wallet_id: 'main', alias: `a${index}` });
      assert.deepEqual(created, {
        address: mnemonicToAccount(MNEMONIC, { addressIndex: index }).address,
        path: `m/44'/60'/0'/0/${index}`,
        index,
        wallet_id: walletId,
        alias: `a${index}`,
      });
    }
  });

  it('refuses an alias already taken, deriving nothing', async () => {
    assert.equal(
      await failureCode(server.call('evm_account_create', { wallet_id: 'main', alias: 'a0' })),
      'INVALID_PARAM',
    );
    const { accounts } = await server.call<{ accounts: unknown[] }>('evm_accounts_list', {});
    assert.equal(accounts.length, 2);
  });
});

/**
 * evm_accounts_list, through a real SDK client on the wallet's own server (in memory): derived and
 * imported accounts, each with where it comes from, filtered by wallet.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { tempHome } from '../../helpers/io.js';
import { importTestnetMain, localServer, type ToolCaller } from '../../helpers/mcp.js';

const MNEMONIC = 'test test test test test test test test test test test junk';

type Listed = {
  accounts: {
    address: string;
    alias: string | null;
    source: string;
    wallet_id: string | null;
    index: number | null;
    path: string | null;
  }[];
};

describe('evm_accounts_list', () => {
  let server: ToolCaller;
  let walletId: string;
  const key = generatePrivateKey();
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: tempHome() }, passphrase: 'evm list test passphrase' });
    walletId = await importTestnetMain(server, MNEMONIC);
  });
  after(() => server.close());

  it('lists nothing before an account is made', async () => {
    assert.deepEqual((await server.call<Listed>('evm_accounts_list', {})).accounts, []);
  });

  it('lists derived and imported accounts with their origin; --wallet-id keeps the derived', async () => {
    await server.call('evm_account_create', { wallet_id: 'main', alias: 'a0' });
    await server.call('evm_account_import', { private_key: key, alias: 'imp' });
    const { accounts } = await server.call<Listed>('evm_accounts_list', {});
    assert.deepEqual(accounts, [
      {
        address: mnemonicToAccount(MNEMONIC).address,
        alias: 'a0',
        source: 'derived',
        wallet_id: walletId,
        index: 0,
        path: "m/44'/60'/0'/0/0",
      },
      {
        address: privateKeyToAccount(key).address,
        alias: 'imp',
        source: 'imported',
        wallet_id: null,
        index: null,
        path: null,
      },
    ]);
    const derived = await server.call<Listed>('evm_accounts_list', { wallet_id: 'main' });
    assert.deepEqual(
      derived.accounts.map((account) => account.alias),
      ['a0'],
    );
  });
});

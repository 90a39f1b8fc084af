/**
 * evm_account_import, through a real SDK client on the wallet's own server (in memory): a private
 * key becomes a keystore account at the address viem computes for it; the same key twice, or a
 * key that is none, is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { tempHome } from '../../helpers/io.js';
import { failureCode, localServer, type ToolCaller } from '../../helpers/mcp.js';

describe('evm_account_import', () => {
  let server: ToolCaller;
  const key = generatePrivateKey();
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: tempHome() }, passphrase: 'evm import test passphrase' });
  });
  after(() => server.close());

  it('imports a private key as an account at its address, with its alias', async () => {
    const imported = await server.call<{ address: string; alias: string; source: string }>('evm_account_import', {
      private_key: key,
      alias: 'imp',
    });
    assert.deepEqual(imported, { address: privateKeyToAccount(key).address, alias: 'imp', source: 'imported' });
  });

  it('refuses the same key again, and a key that is not 32 bytes of hex', async () => {
    assert.equal(
      await failureCode(server.call('evm_account_import', { private_key: key, alias: 'again' })),
      'INVALID_PARAM',
    );
    assert.equal(
      await failureCode(server.call('evm_account_import', { private_key: '0x1234', alias: 'short' })),
      'INVALID_PARAM',
    );
    const { accounts } = await server.call<{ accounts: { alias: string }[] }>('evm_accounts_list', {});
    assert.deepEqual(
      accounts.map((account) => account.alias),
      ['imp'],
    );
  });
});

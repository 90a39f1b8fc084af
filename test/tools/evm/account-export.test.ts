/**
 * evm_account_export, through a real SDK client on the wallet's own server (in memory): the owner
 * gets back the private key an account was imported with, or a keystore v3 document that ethers
 * (an independent implementation) decrypts to the same key; an agent's server does not serve it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Wallet } from 'ethers';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { tempHome } from '../../helpers/io.js';
import { localServer, type ToolCaller } from '../../helpers/mcp.js';

type Exported = { address: string; key_format: string; private_key: string | null; keystore_json: string | null };

describe('evm_account_export', () => {
  const home = tempHome();
  const passphrase = 'evm export test passphrase';
  const key = generatePrivateKey();
  let server: ToolCaller;
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: home }, passphrase });
    await server.call('evm_account_import', { private_key: key, alias: 'imp' });
  });
  after(() => server.close());

  it('gives the owner back the private key', async () => {
    const exported = await server.call<Exported>('evm_account_export', { address: 'imp', key_format: 'private_key' });
    assert.equal(exported.private_key, key);
    assert.equal(exported.address, privateKeyToAccount(key).address);
  });

  it('or a keystore v3 document, which ethers decrypts with the password to the same key', async () => {
    const exported = await server.call<Exported>('evm_account_export', {
      address: 'imp',
      key_format: 'keystore_v3',
      keystore_password: 'a password for the export',
    });
    assert.equal(exported.private_key, null);
    const decrypted = await Wallet.fromEncryptedJson(exported.keystore_json ?? '', 'a password for the export');
    assert.equal(decrypted.privateKey, key);
  });

  it("is not served to an agent: `wallet serve`'s list has no such tool", async () => {
    const agent = await localServer({ env: { WALLET_HOME: home }, passphrase, caller: 'agent', localOnly: false });
    try {
      const { tools } = await agent.client.listTools();
      assert.ok(!tools.some((tool) => tool.name === 'evm_account_export'));
    } finally {
      await agent.close();
    }
  });
});

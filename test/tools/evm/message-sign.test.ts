/**
 * evm_message_sign, through a real SDK client on the wallet's own server (in memory): an EIP-191
 * signature by a keystore account, which viem's verifyMessage (not the wallet's code) accepts for
 * that account and message only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyMessage } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { tempHome } from '../../helpers/io.js';
import { failureCode, localServer, type ToolCaller } from '../../helpers/mcp.js';

describe('evm_message_sign', () => {
  let server: ToolCaller;
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: tempHome() }, passphrase: 'evm sign test passphrase' });
    await server.call('evm_account_import', { private_key: key, alias: 'imp' });
  });
  after(() => server.close());

  it("signs with the account's key: viem verifies it for that message and address only", async () => {
    const signed = await server.call<{ address: string; message: string; signature: `0x${string}` }>(
      'evm_message_sign',
      { address: 'imp', message: 'I own this' },
    );
    assert.equal(signed.address, address);
    assert.equal(await verifyMessage({ address, message: 'I own this', signature: signed.signature }), true);
    assert.equal(await verifyMessage({ address, message: 'I own that', signature: signed.signature }), false);
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    assert.equal(await verifyMessage({ address: stranger, message: 'I own this', signature: signed.signature }), false);
  });

  it('refuses an address the keystore does not hold: WALLET_NOT_FOUND', async () => {
    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    assert.equal(
      await failureCode(server.call('evm_message_sign', { address: stranger, message: 'x' })),
      'WALLET_NOT_FOUND',
    );
  });
});

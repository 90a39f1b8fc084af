/**
 * core_message_verify, through a real SDK client on the wallet's own server (in memory), on a
 * signature core_message_sign made with a wallet created here: a signature in Dash Core's
 * signed-message format is valid for its address and message only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tempHome } from '../../helpers/io.js';
import { failureCode, localServer, type ToolCaller } from '../../helpers/mcp.js';

describe('core_message_verify', () => {
  let server: ToolCaller;
  let signer: string;
  let other: string;
  let signature: string;
  const verify = async (args: Record<string, unknown>) =>
    (await server.call<{ valid: boolean }>('core_message_verify', args)).valid;
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: tempHome() }, passphrase: 'message verify test passphrase' });
    await server.call('core_wallet_create', { alias: 'main', network: 'testnet' });
    const create = async () =>
      (await server.call<{ address: string }>('core_address_create', { wallet_id: 'main', network: 'testnet' }))
        .address;
    signer = await create();
    other = await create();
    ({ signature } = await server.call<{ signature: string }>('core_message_sign', {
      wallet_id: 'main',
      address: signer,
      message: 'I own this',
    }));
  });
  after(() => server.close());

  it("is true for the signer's address and exactly the message signed", async () => {
    assert.equal(await verify({ address: signer, message: 'I own this', signature }), true);
  });

  it('is false for another message or another address', async () => {
    assert.equal(await verify({ address: signer, message: 'I own that', signature }), false);
    assert.equal(await verify({ address: other, message: 'I own this', signature }), false);
  });

  it('malformed input is the caller’s mistake: INVALID_PARAM', async () => {
    for (const args of [
      { address: signer, message: 'I own this', signature: 'not base64!' },
      { address: signer, message: 'I own this', signature: Buffer.alloc(10).toString('base64') },
    ]) {
      assert.equal(await failureCode(server.call('core_message_verify', args)), 'INVALID_PARAM', args.signature);
    }
  });
});

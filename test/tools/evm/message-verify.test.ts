/**
 * evm_message_verify, through a real SDK client on the wallet's server (in memory), on signatures
 * made here by viem's own EIP-191 signer with anvil's first well-known key: no keystore, no chain.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { tempHome } from '../../helpers/io.js';
import { failureCode, localServer, type ToolCaller } from '../../helpers/mcp.js';

const signer = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');

describe('evm_message_verify', () => {
  let server: ToolCaller;
  const verify = async (args: Record<string, unknown>) =>
    (await server.call<{ valid: boolean }>('evm_message_verify', args)).valid;
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: tempHome() }, caller: 'agent', localOnly: false });
  });
  after(() => server.close());

  it("is true for the signer's signature of exactly that message, whatever the address's case", async () => {
    const signature = await signer.signMessage({ message: 'I own this' });
    assert.equal(await verify({ address: signer.address, message: 'I own this', signature }), true);
    assert.equal(await verify({ address: signer.address.toLowerCase(), message: 'I own this', signature }), true);
  });

  it('is false for another message or another key', async () => {
    const signature = await signer.signMessage({ message: 'I own this' });
    assert.equal(await verify({ address: signer.address, message: 'I own that', signature }), false);
    const other = await privateKeyToAccount(generatePrivateKey()).signMessage({ message: 'I own this' });
    assert.equal(await verify({ address: signer.address, message: 'I own this', signature: other }), false);
  });

  it('a signature that is no 65-byte hex is the caller’s mistake: INVALID_PARAM', async () => {
    for (const signature of ['0x1234', 'not hex at all']) {
      assert.equal(
        await failureCode(server.call('evm_message_verify', { address: signer.address, message: 'x', signature })),
        'INVALID_PARAM',
        signature,
      );
    }
  });
});

/**
 * core_message_sign, through a real SDK client on the wallet's own server (in memory): the
 * signature of a wallet's address, in Dash Core's signed-message format, verifies with
 * dashcore-lib (an independent implementation) for that address and message only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ABANDON, dashcoreVerifies, testnetAddressAt } from '../../helpers/dashcore-oracle.js';
import { tempHome } from '../../helpers/io.js';
import { failureCode, localServer, type ToolCaller } from '../../helpers/mcp.js';

describe('core_message_sign', () => {
  let server: ToolCaller;
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: tempHome() }, passphrase: 'sign test passphrase' });
    await server.call('core_wallet_import', { alias: 'main', network: 'testnet', mnemonic: ABANDON, discover: false });
    await server.call('core_address_create', { wallet_id: 'main' });
  });
  after(() => server.close());

  it('signs with the key of the address given: dashcore-lib verifies it, for that message only', async () => {
    const address = testnetAddressAt(ABANDON, 0, 0);
    const { signature } = await server.call<{ signature: string }>('core_message_sign', {
      wallet_id: 'main',
      address,
      message: 'I own this',
    });
    assert.equal(dashcoreVerifies('I own this', address, signature), true);
    assert.equal(dashcoreVerifies('I own that', address, signature), false);
    assert.equal(dashcoreVerifies('I own this', testnetAddressAt(ABANDON, 0, 1), signature), false);
  });

  it("refuses an address that is not one of the wallet's issued addresses: INVALID_PARAM", async () => {
    const code = await failureCode(
      server.call('core_message_sign', {
        wallet_id: 'main',
        address: testnetAddressAt('legal winner thank year wave sausage worth useful legal winner thank yellow', 0, 0),
        message: 'x',
      }),
    );
    assert.equal(code, 'INVALID_PARAM');
  });
});

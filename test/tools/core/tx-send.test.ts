/**
 * core_tx_send through the CLI on each Dash backend (test/helpers/dash-backend-wallet.ts): a
 * transaction made by core_tx_create and signed by core_tx_sign is refused above max_fee_duffs,
 * broadcasting nothing, then sent, with the txid and fee it was signed with.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createToStranger, describeOnMainWallet } from '../../helpers/dash-backend-wallet.js';

describeOnMainWallet('core_tx_send', (on) => {
  it('creates, signs, and refuses to send above max_fee_duffs; then sends', async () => {
    const created = await on.ok(createToStranger());
    const signed = await on.ok([
      'core-tx-sign',
      '--wallet-id',
      'main',
      '--network',
      'testnet',
      '--psbt',
      created['psbt'] as string,
    ]);
    const refused = await on.fails([
      'core-tx-send',
      '--network',
      'testnet',
      '--hex',
      signed['hex'] as string,
      '--max-fee-duffs',
      '100',
    ]);
    assert.match(refused, /POLICY_VIOLATION/);
    assert.equal(on.backends.chain.broadcasts.length, 0, 'nothing broadcast');
    const sent = await on.ok(['core-tx-send', '--network', 'testnet', '--hex', signed['hex'] as string]);
    assert.equal(sent['txid'], signed['txid']);
    assert.equal(sent['fee_duffs'], created['fee_duffs']);
    assert.equal(on.backends.chain.broadcasts.length, 1);
  });
});

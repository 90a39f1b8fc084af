/**
 * core_tx_sign through the CLI on each Dash backend (test/helpers/dash-backend-wallet.ts): it
 * refuses a PSBT that understates an input's amount (legacy signatures do not commit to amounts,
 * so the chain's own amounts are checked) and one whose fee is above max_fee_duffs.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { base64 } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import { createToStranger, describeOnMainWallet } from '../../helpers/dash-backend-wallet.js';

describeOnMainWallet('core_tx_sign', (on) => {
  it('refuses to sign a PSBT that understates an input amount, or whose fee is above max_fee_duffs', async () => {
    const created = await on.ok(createToStranger());
    const tx = Transaction.fromPSBT(base64.decode(created['psbt'] as string), {
      version: 3,
      allowLegacyWitnessUtxo: true,
    });
    const input = tx.getInput(0);
    assert.ok(input.witnessUtxo);
    // A forger lowers the amount the PSBT records for an input and the change by as much: the PSBT's
    // fee looks unchanged, while the real fee (legacy signatures do not commit to amounts) grows.
    const forged = 50_000_000n;
    tx.updateInput(
      0,
      { witnessUtxo: { script: input.witnessUtxo.script, amount: input.witnessUtxo.amount - forged } },
      true,
    );
    const last = tx.outputsLength - 1;
    const change = tx.getOutput(last);
    assert.ok(change.amount !== undefined && change.amount > forged);
    tx.updateOutput(last, { amount: change.amount - forged }, true);
    const sign = ['core-tx-sign', '--wallet-id', 'main', '--network', 'testnet', '--psbt'];
    assert.match(
      await on.fails([...sign, base64.encode(tx.toPSBT())]),
      /INVALID_PARAM: psbt input 0 claims .* the chain says/,
    );
    assert.match(await on.fails([...sign, created['psbt'] as string, '--max-fee-duffs', '10']), /POLICY_VIOLATION/);
  });
});

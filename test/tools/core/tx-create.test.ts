/**
 * core_tx_create through the CLI on each Dash backend (test/helpers/dash-backend-wallet.ts): an
 * unsigned transaction (PSBT) paying what was asked, its change to the wallet's next change address
 * and its fee exactly what its inputs leave over, decoded here with @scure/btc-signer; nothing is
 * signed or broadcast.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { base64, hex } from '@scure/base';
import { Transaction } from '@scure/btc-signer';
import {
  addressAt,
  createToStranger,
  describeOnMainWallet,
  scriptOf,
  STRANGER,
} from '../../helpers/dash-backend-wallet.js';

type Row = { txid: string; vout: number; amount_duffs: string };

describeOnMainWallet('core_tx_create', (on) => {
  it('pays what was asked, change to the next change address, the fee what the inputs leave', async () => {
    const created = await on.ok(createToStranger());
    assert.equal(created['change_address'], addressAt(1, 3));
    const tx = Transaction.fromPSBT(base64.decode(created['psbt'] as string), {
      version: 3,
      allowLegacyWitnessUtxo: true,
    });
    assert.equal(tx.isFinal, false, 'unsigned');
    const inputs = created['inputs'] as Row[];
    assert.equal(tx.inputsLength, inputs.length);
    let spent = 0n;
    for (let i = 0; i < tx.inputsLength; i += 1) {
      const input = tx.getInput(i);
      assert.equal(hex.encode(input.txid ?? new Uint8Array()), inputs[i]?.txid);
      assert.equal(input.index, inputs[i]?.vout);
      spent += input.witnessUtxo?.amount ?? 0n;
    }
    const outputs = Array.from({ length: tx.outputsLength }, (_, i) => tx.getOutput(i));
    assert.equal(hex.encode(outputs[0]?.script ?? new Uint8Array()), hex.encode(scriptOf(STRANGER)));
    assert.equal(outputs[0]?.amount, 1_000_000n);
    assert.equal(hex.encode(outputs.at(-1)?.script ?? new Uint8Array()), hex.encode(scriptOf(addressAt(1, 3))));
    const paid = outputs.reduce((sum, output) => sum + (output.amount ?? 0n), 0n);
    assert.equal(BigInt(created['fee_duffs'] as string), spent - paid);
    assert.equal(on.backends.chain.broadcasts.length, 0, 'nothing broadcast');
  });

  it('refuses more than the wallet holds: INSUFFICIENT_FUNDS', async () => {
    const refused = await on.fails(createToStranger('100000000000'));
    assert.match(refused, /INSUFFICIENT_FUNDS/);
  });
});

import { z } from 'zod';
import type { CreatedTransaction } from '../../domain/dash/plan.js';
import { DuffsAmount } from '../fields.js';

// The coins a planned transaction spends and its outputs (core_tx_create, core_funds_send).

export const InputRow = z.object({
  txid: z.string().describe('The transaction of the coin spent.'),
  vout: z.int().describe('Its output index.'),
  address: z.string().describe('The wallet address that held it.'),
  amount_duffs: DuffsAmount.describe('Its value in duffs.'),
});
export const OutputRow = z.object({
  address: z.string().describe('Where the output pays.'),
  amount_duffs: DuffsAmount.describe('Its value in duffs.'),
  change: z.boolean().describe('True for the change back to the wallet.'),
});

export function rows(created: Pick<CreatedTransaction, 'inputs' | 'outputs' | 'change'>) {
  return {
    inputs: created.inputs.map((u) => ({
      txid: u.txid,
      vout: u.vout,
      address: u.address,
      amount_duffs: u.amount.toString(),
    })),
    outputs: created.outputs.map((o) => ({ address: o.address, amount_duffs: o.amount.toString(), change: o.change })),
    change_address: created.change?.address ?? null,
  };
}

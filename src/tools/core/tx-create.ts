import { z } from 'zod';
import { parseDuffs } from '../../domain/dash/amount.js';
import { defineTool } from '../define.js';
import { CoreAddress, Duffs, DuffsAmount, RequiredCoreNetwork, WalletId } from '../fields.js';
import { FeeRate, optionalDuffs } from './tx-inputs.js';
import { InputRow, OutputRow, rows } from './tx-rows.js';

// The handler imports its domain module (and with it @scure/btc-signer) on its first call, not
// when an address is made.

const Payment = z.strictObject({ address: CoreAddress, amount_duffs: Duffs.describe('The amount to pay, in duffs.') });

export const coreTxCreate = defineTool({
  name: 'core_tx_create',
  group: 'core_funds',
  title: 'Create a transaction',
  summary: 'Build an unsigned payment (PSBT) from wallet coins',
  description: [
    'Chooses coins (largest first) to pay the outputs plus the fee, adds change to the next change',
    "address m/44'/coin'/0'/1/j when it is above the dust limit (546 duffs; smaller change goes to",
    'the fee), and returns the unsigned transaction as a Base64 PSBT (BIP174) with fee and estimated',
    'size. Sign it with core-tx-sign, broadcast with core-tx-send. Nothing is spent here, but the',
    'change address index is reserved. With a shared state store (replicas) its coins are held for',
    'this transaction for 30 minutes: no other payment chooses them meanwhile.',
    '',
    'Example: wallet core-tx-create --wallet-id main --network testnet --outputs \'{"address":"yRd4…","amount_duffs":"150000"}\'',
  ].join('\n'),
  input: () =>
    z.strictObject({
      wallet_id: WalletId,
      network: RequiredCoreNetwork,
      outputs: z.array(Payment).min(1).max(100).describe('The payments. Each an address and amount_duffs.'),
      fee_rate_duffs_per_kb: FeeRate,
    }),
  output: () =>
    z.object({
      psbt: z.string().describe('The unsigned transaction, Base64 PSBT.'),
      fee_duffs: DuffsAmount.describe('The fee in duffs.'),
      size_bytes: z.int().describe('The estimated signed size in bytes.'),
      inputs: z.array(InputRow).describe('The coins spent.'),
      outputs: z.array(OutputRow).describe('The outputs, change last.'),
      change_address: z.string().nullable().describe('The change address; null when there is no change.'),
    }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  handler: async ({ wallet_id, network, outputs, fee_rate_duffs_per_kb }, { services, signal }) => {
    const { createTransaction } = await import('../../domain/dash/plan.js');
    const created = await createTransaction(services, {
      walletId: wallet_id,
      network,
      payments: outputs.map((o, i) => ({
        address: o.address,
        amount: parseDuffs(o.amount_duffs, `outputs[${i}].amount_duffs`),
      })),
      feeRate: optionalDuffs(fee_rate_duffs_per_kb, 'fee_rate_duffs_per_kb'),
      signal,
    });
    return { psbt: created.psbt, fee_duffs: created.fee.toString(), size_bytes: created.size, ...rows(created) };
  },
});

import { z } from 'zod';
import { parseDuffs } from '../../domain/dash/amount.js';
import { defineTool } from '../define.js';
import { CoreAddress, Duffs, DuffsAmount, RequiredCoreNetwork, WalletId } from '../fields.js';
import { FeeRate, MaxFee, optionalDuffs } from './tx-inputs.js';
import { InputRow, OutputRow, rows } from './tx-rows.js';

// The handler imports its domain module (and with it @scure/btc-signer) on its first call, not
// when an address is made.

export const coreFundsSend = defineTool({
  name: 'core_funds_send',
  group: 'core_funds',
  outcome: 'sent',
  dryRunField: 'dry_run',
  // An approved payment pays no more fee than the plan its owner saw: max_fee_duffs is lowered to it.
  feeField: { field: 'fee_duffs', cap: 'max_fee_duffs' },
  title: 'Send Dash',
  summary: 'Pay an address: create, sign and broadcast',
  description: [
    'Pays amount_duffs to address from the wallet in one step: core-tx-create, core-tx-sign and',
    "core-tx-send. Refuses a fee above max_fee_duffs before signing, and a payment the network's",
    'spending policy forbids (POLICY_VIOLATION naming the rule; docs/POLICY.md). With dry_run it only',
    'plans: it shows the coins, outputs, change address and fee, signs nothing and uses up no change',
    'index; a dry run the policy would refuse is refused the same way.',
    'Needs the keystore passphrase (not for a dry run).',
    '',
    'Example: wallet core-funds-send --wallet-id main --network testnet --address yRd4… --amount-duffs 150000 --dry-run',
  ].join('\n'),
  input: () =>
    z.strictObject({
      wallet_id: WalletId,
      network: RequiredCoreNetwork,
      address: CoreAddress.describe('The address to pay.'),
      amount_duffs: Duffs.describe('The amount to pay, in duffs. 1 DASH = 100000000 duffs.'),
      fee_rate_duffs_per_kb: FeeRate,
      max_fee_duffs: MaxFee,
      dry_run: z.boolean().default(false).describe('Only plan: show fee, coins and outputs; sign and send nothing.'),
    }),
  output: () =>
    z.object({
      sent: z.boolean().describe('True when broadcast; false for a dry run.'),
      txid: z.string().nullable().describe('The transaction id; null for a dry run.'),
      hex: z.string().nullable().describe('The signed transaction, hex; null for a dry run (nothing is signed).'),
      fee_duffs: DuffsAmount.describe('The fee in duffs.'),
      size_bytes: z.int().describe('The estimated signed size in bytes.'),
      inputs: z.array(InputRow).describe('The coins spent.'),
      outputs: z.array(OutputRow).describe('The outputs, change last.'),
      change_address: z.string().nullable().describe('The change address; null when there is no change.'),
    }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  consent: 'policy',
  handler: async (input, { services, signal, authority }) => {
    const { sendFunds } = await import('../../domain/dash/pay.js');
    const result = await sendFunds(services, {
      authority,
      walletId: input.wallet_id,
      network: input.network,
      payments: [{ address: input.address, amount: parseDuffs(input.amount_duffs, 'amount_duffs') }],
      feeRate: optionalDuffs(input.fee_rate_duffs_per_kb, 'fee_rate_duffs_per_kb'),
      maxFee: optionalDuffs(input.max_fee_duffs, 'max_fee_duffs'),
      dryRun: input.dry_run,
      signal,
    });
    return {
      sent: result.sent,
      txid: result.txid,
      hex: result.hex,
      fee_duffs: result.fee.toString(),
      size_bytes: result.size,
      ...rows(result),
    };
  },
  audit: (input, output) => ({
    network: input.network,
    wallet_id: input.wallet_id,
    amount: input.amount_duffs,
    unit: 'duffs',
    recipient: input.address,
    txid: output?.txid ?? undefined,
    dry_run: input.dry_run || undefined,
  }),
});

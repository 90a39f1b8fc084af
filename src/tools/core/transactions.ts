import { z } from 'zod';
import { DEFAULT_MAX_FEE_DUFFS, parseDuffs } from '../../domain/dash/amount.js';
import type { CreatedTransaction } from '../../domain/dash/plan.js';
import type { TransactionGist } from '../../domain/dash/transaction.js';
import type { CoreNetwork } from '../../domain/config/networks.js';
import { defineTool } from '../define.js';
import { CoreAddress, Duffs, DuffsAmount, DuffsPerKb, RequiredCoreNetwork, WalletId } from '../fields.js';

// Each handler imports its domain module (and with it @scure/btc-signer) on its first call, not
// when an address is made.

const FeeRate = DuffsPerKb.optional().describe(
  "Duffs per 1000 bytes. The fee rate; 1000 (Dash's minimum relay fee) when omitted.",
);
const MaxFee = Duffs.optional().describe(
  `A fee cap in duffs. Refuse to send if the fee is above it; ${DEFAULT_MAX_FEE_DUFFS} (0.01 DASH) when omitted.`,
);

const optionalDuffs = (value: string | undefined, field: string): bigint | undefined =>
  value === undefined ? undefined : parseDuffs(value, field);

const Payment = z.strictObject({ address: CoreAddress, amount_duffs: Duffs.describe('The amount to pay, in duffs.') });

const InputRow = z.object({
  txid: z.string().describe('The transaction of the coin spent.'),
  vout: z.int().describe('Its output index.'),
  address: z.string().describe('The wallet address that held it.'),
  amount_duffs: DuffsAmount.describe('Its value in duffs.'),
});
const OutputRow = z.object({
  address: z.string().describe('Where the output pays.'),
  amount_duffs: DuffsAmount.describe('Its value in duffs.'),
  change: z.boolean().describe('True for the change back to the wallet.'),
});

function rows(created: Pick<CreatedTransaction, 'inputs' | 'outputs' | 'change'>) {
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
    'change address index is reserved.',
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

export const coreTxSign = defineTool({
  name: 'core_tx_sign',
  group: 'core_funds',
  outcome: 'signed',
  title: 'Sign a transaction',
  summary: "Sign a PSBT with the wallet's keys",
  description: [
    'Unlocks the wallet and signs every input of a PSBT made by core-tx-create (each input must name',
    "this wallet's key and a path of its network), then returns the signed raw transaction and its",
    'txid. Nothing is broadcast. The fee shown is the one the PSBT records; core-tx-send re-checks it',
    "against the chain. The network's spending policy (docs/POLICY.md) applies here already: a refused",
    'payment is not signed, and a signed one counts towards the 24-hour cap. Needs the keystore passphrase.',
    '',
    'Example: wallet core-tx-sign --wallet-id main --network testnet --psbt cHNidP8B…',
  ].join('\n'),
  input: () =>
    z.strictObject({
      wallet_id: WalletId,
      network: RequiredCoreNetwork,
      psbt: z.string().min(1).max(1_000_000).describe('The unsigned PSBT, Base64.'),
      max_fee_duffs: MaxFee.describe(
        `A fee cap in duffs. Refuse to sign if the fee is above it; ${DEFAULT_MAX_FEE_DUFFS} (0.01 DASH) when omitted.`,
      ),
    }),
  output: () =>
    z.object({
      hex: z.string().describe('The signed transaction, hex.'),
      txid: z.string().describe('Its transaction id.'),
      fee_duffs: DuffsAmount.describe('The fee, its input amounts checked against the chain.'),
      size_bytes: z.int().describe('The signed size in bytes.'),
    }),
  // A signed transaction can be broadcast by anyone, through any node: signing it is spending.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  consent: 'policy',
  handler: async ({ wallet_id, network, psbt, max_fee_duffs }, { services, signal, authority }) => {
    const { signTransaction } = await import('../../domain/dash/sign.js');
    const signed = await signTransaction(services, {
      walletId: wallet_id,
      network,
      psbt,
      maxFee: optionalDuffs(max_fee_duffs, 'max_fee_duffs'),
      signal,
      authority,
    });
    return { hex: signed.hex, txid: signed.txid, fee_duffs: signed.fee.toString(), size_bytes: signed.size };
  },
  audit: async ({ wallet_id, network, psbt }, output) => {
    const gist = await readableGist({ psbt }, network);
    return {
      network,
      wallet_id,
      unit: 'duffs',
      recipient: outputAddresses(gist),
      fee: output?.fee_duffs ?? gist?.fee?.toString(),
      txid: output?.txid,
      signed_only: true,
    };
  },
});

/** A transaction's outputs for the audit line and the confirmation; undefined when it does not decode. */
async function readableGist(
  encoded: { psbt: string } | { hex: string },
  network: CoreNetwork,
): Promise<TransactionGist | undefined> {
  const { transactionGist } = await import('../../domain/dash/transaction.js');
  try {
    return transactionGist(encoded, network);
  } catch {
    return undefined;
  }
}

/** Every output's address, change included (what a transaction pays before anyone sorts out change). */
function outputAddresses(gist: TransactionGist | undefined): string[] | undefined {
  return gist?.outputs.map((out) => out.address ?? '(no address)');
}

export const coreTxSend = defineTool({
  name: 'core_tx_send',
  group: 'core_funds',
  outcome: 'sent',
  title: 'Broadcast a transaction',
  summary: 'Broadcast a signed transaction (fee-capped)',
  description: [
    "Broadcasts a signed raw transaction through the network's backend. First it checks that the",
    'backend serves network, looks up every coin the transaction spends, and refuses (POLICY_VIOLATION)',
    "when the fee is above max_fee_duffs or the network's spending policy (docs/POLICY.md) forbids the",
    'payment. Irreversible once accepted. amount_duffs and recipients count only outputs to addresses',
    "outside this keystore's wallets of that network.",
    '',
    'Example: wallet core-tx-send --network testnet --hex 0300000001…',
  ].join('\n'),
  input: () =>
    z.strictObject({
      network: RequiredCoreNetwork,
      hex: z.string().min(20).max(2_000_000).describe("The signed transaction, hex. core-tx-sign's hex."),
      max_fee_duffs: MaxFee,
    }),
  output: () =>
    z.object({
      txid: z.string().describe('The transaction id the backend accepted.'),
      fee_duffs: DuffsAmount.describe("The fee, from the backend's view of the coins spent."),
      size_bytes: z.int().describe('The size in bytes.'),
      amount_duffs: DuffsAmount.describe(
        "What it pays to addresses outside this keystore's wallets of that network, in duffs.",
      ),
      recipients: z.array(z.string()).describe('Those addresses.'),
    }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  consent: 'policy',
  handler: async ({ network, hex, max_fee_duffs }, { services, signal, authority }) => {
    const { sendTransaction } = await import('../../domain/dash/send.js');
    const sent = await sendTransaction(services, {
      network,
      hex,
      maxFee: optionalDuffs(max_fee_duffs, 'max_fee_duffs'),
      signal,
      authority,
    });
    return {
      txid: sent.txid,
      fee_duffs: sent.fee.toString(),
      size_bytes: sent.size,
      amount_duffs: sent.paid.toString(),
      recipients: sent.recipients,
    };
  },
  audit: async ({ network, hex }, output) => ({
    network,
    amount: output?.amount_duffs,
    unit: 'duffs',
    // Before the broadcast (the confirmation, a failure) every output is listed, change included.
    recipient: output?.recipients ?? outputAddresses(await readableGist({ hex }, network)),
    txid: output?.txid,
  }),
});

export const coreFundsSend = defineTool({
  name: 'core_funds_send',
  group: 'core_funds',
  outcome: 'sent',
  dryRunField: 'dry_run',
  feeField: { field: 'fee_duffs' },
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

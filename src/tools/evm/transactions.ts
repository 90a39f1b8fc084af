import { z } from 'zod';
import { DEFAULT_MAX_FEE_WEI } from '../../domain/evm/amount.js';
import { formatEther } from '../../shared/amounts.js';
import type { EvmTxPlan } from '../../domain/evm/plan.js';
import type { TxStatus } from '../../domain/evm/status.js';
import type { SignedTx, TransactionGist } from '../../domain/evm/transaction.js';
import { defineTool } from '../define.js';
import {
  coinsOf,
  Digits,
  EvmAccount,
  EvmAddressOrAlias,
  HexData,
  OptionalEvmNetwork,
  RequiredEvmNetwork,
  TxHash,
  Wei,
  WeiAmount,
  WeiPerGas,
} from '../fields.js';

// Each handler imports its EVM domain module (and with it viem) on its first call, not when a
// Dash call starts the CLI.

const DEFAULT_WAIT_SECONDS = 120;

const From = EvmAccount.describe('The sending account. A keystore address or alias.');
export const Wait = z.boolean().default(false).describe('Wait for the receipt. With progress, before answering.');
export const WaitSeconds = z
  .int()
  .min(1)
  .max(3600)
  .default(DEFAULT_WAIT_SECONDS)
  .describe(`Seconds to wait. ${DEFAULT_WAIT_SECONDS} by default; then the status stays pending.`);
export const MaxFee = Wei.optional().describe(
  `A fee cap in wei. Refuse (POLICY_VIOLATION, nothing signed or sent) if gas limit × max fee per gas exceeds it; ${DEFAULT_MAX_FEE_WEI} (0.01 ether) when omitted.`,
);

const PlanFields = {
  network: z.string().describe('The EVM network.'),
  chain_id: z.int().describe('Its chain id, as signed into the transaction.'),
  from: z.string().describe('The sender.'),
  to: z.string().nullable().describe('The recipient; null for a contract deployment.'),
  value_wei: WeiAmount.describe('The value sent, in wei.'),
  value_ether: coinsOf('value_wei').describe('The value sent, in ether.'),
  data: z.string().describe('The calldata (0x when none).'),
  nonce: z.int().describe("The sender's nonce."),
  gas_limit: z.string().describe("The gas limit (the node's estimate unless given)."),
  max_fee_per_gas: WeiPerGas.describe('EIP-1559 max fee per gas, in wei.'),
  max_priority_fee_per_gas: WeiPerGas.describe('EIP-1559 priority fee (tip) per gas, in wei.'),
  max_fee_wei: WeiAmount.describe('The most the fee can be: gas limit × max fee per gas, in wei.'),
};

function planFields(plan: EvmTxPlan) {
  return {
    network: plan.network,
    chain_id: plan.chainId,
    from: plan.from,
    to: plan.to,
    value_wei: plan.value.toString(),
    value_ether: formatEther(plan.value),
    data: plan.data,
    nonce: plan.nonce,
    gas_limit: plan.gasLimit.toString(),
    max_fee_per_gas: plan.maxFeePerGas.toString(),
    max_priority_fee_per_gas: plan.maxPriorityFeePerGas.toString(),
    max_fee_wei: plan.maxFee.toString(),
  };
}

const StatusFields = {
  hash: z.string().describe('The transaction hash.'),
  status: z
    .enum(['pending', 'success', 'reverted'])
    .describe('pending (not mined yet, or not waited for), success or reverted.'),
  block_number: z.int().nullable().describe('The block that mined it; null while pending.'),
  gas_used: z.string().nullable().describe('Gas used; null while pending.'),
  fee_wei: WeiAmount.nullable().describe('The fee paid, gas used × effective gas price, in wei; null while pending.'),
  contract_address: z.string().nullable().describe('The contract a deployment created; else null.'),
};

/** What a one-step payment (evm_funds_send, evm_token_transfer) says of its sending. */
export const PaymentFields = {
  sent: z.boolean().describe('False for a dry run.'),
  hash: z.string().nullable().describe('The transaction hash; null for a dry run.'),
  status: z
    .enum(['planned', 'pending', 'success', 'reverted'])
    .describe('planned (dry run), pending (not mined yet or not waited for), success or reverted.'),
  block_number: StatusFields.block_number,
  gas_used: StatusFields.gas_used,
  fee_wei: StatusFields.fee_wei,
};

export function statusFields(status: TxStatus) {
  return {
    hash: status.hash,
    status: status.status,
    block_number: status.blockNumber === null ? null : Number(status.blockNumber),
    gas_used: status.gasUsed?.toString() ?? null,
    fee_wei: status.fee?.toString() ?? null,
    contract_address: status.contractAddress,
  };
}

const SignedFields = {
  from: z.string().describe('The signer.'),
  to: z.string().nullable().describe('The recipient; null for a contract deployment.'),
  chain_id: z.int().describe('The chain id signed into it.'),
  nonce: z.int().describe("The signer's nonce."),
  value_wei: WeiAmount.describe('The value, in wei.'),
  max_fee_wei: WeiAmount.describe('The most the fee can be, in wei.'),
};

function signedFields(signed: SignedTx) {
  return {
    from: signed.from,
    to: signed.to,
    chain_id: signed.chainId,
    nonce: signed.nonce,
    value_wei: signed.value.toString(),
    max_fee_wei: signed.maxFee.toString(),
  };
}

export const evmTxCreate = defineTool({
  name: 'evm_tx_create',
  group: 'evm_tx',
  title: 'Create an EVM transaction',
  summary: 'Build an unsigned EIP-1559 transaction',
  description: [
    "Builds an unsigned EIP-1559 transaction from the network's node: chain id, the sender's pending",
    'nonce, a gas estimate and current fees. Refuses (INSUFFICIENT_FUNDS) when the sender cannot pay',
    'value plus the most the fee can be. Returns the fields and unsigned_tx (serialized hex) for',
    'evm-tx-sign. Without to, data is init code and the transaction deploys a contract.',
    'Nothing is signed or sent; no key is needed, so the sender may be any address.',
    '',
    'Example: wallet evm-tx-create --address savings --to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --value-wei 1000000000000000 --network sepolia',
  ].join('\n'),
  input: () =>
    z.strictObject({
      address: EvmAddressOrAlias.describe('The sender. Any address, or the alias of a keystore account.'),
      to: EvmAddressOrAlias.optional().describe(
        "The recipient or contract called; omit to deploy a contract. An address, or a keystore account's alias.",
      ),
      value_wei: Wei.default('0').describe('Value in wei (digits); 0 when omitted.'),
      data: HexData.optional(),
      network: RequiredEvmNetwork,
      gas_limit: Digits.optional().describe("A gas limit, in digits. Instead of the node's estimate."),
      nonce: z.int().min(0).optional().describe('Overrides the next nonce. To replace a pending transaction.'),
    }),
  output: () =>
    z.object({ ...PlanFields, unsigned_tx: z.string().describe('The unsigned transaction, serialized (hex).') }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async (input, { services, signal }) => {
    const { createTransaction } = await import('../../domain/evm/plan.js');
    const plan = await createTransaction(
      services,
      {
        from: input.address,
        to: input.to,
        value: input.value_wei,
        data: input.data,
        network: input.network,
        gasLimit: input.gas_limit,
        nonce: input.nonce,
      },
      signal,
    );
    return { ...planFields(plan), unsigned_tx: plan.unsigned };
  },
});

export const evmTxSign = defineTool({
  name: 'evm_tx_sign',
  group: 'evm_tx',
  outcome: 'signed',
  title: 'Sign an EVM transaction',
  summary: 'Sign an unsigned transaction offline',
  description: [
    'Signs unsigned_tx (from evm-tx-create, or any legacy EIP-155, EIP-2930 or EIP-1559 transaction)',
    'with a keystore account, without contacting a node. The transaction must carry the chain id of',
    'the network named (NETWORK_MISMATCH otherwise), so it cannot be replayed elsewhere. Needs the',
    "keystore passphrase. Returns signed_tx for evm-tx-send and its hash. The network's spending policy",
    '(docs/POLICY.md) applies here already: a refused payment is not signed, and a signed one counts',
    'towards the 24-hour cap.',
    '',
    'Example: wallet evm-tx-sign --address savings --unsigned-tx <unsigned_tx from evm-tx-create> --network sepolia',
  ].join('\n'),
  input: () =>
    z.strictObject({
      address: From.describe('The signing account. A keystore address or alias.'),
      unsigned_tx: HexData.describe('Unsigned transaction, hex. evm-tx-create gives it, serialized.'),
      network: RequiredEvmNetwork,
      max_fee_wei: MaxFee,
    }),
  output: () =>
    z.object({
      signed_tx: z.string().describe('The signed transaction, serialized hex: what evm-tx-send broadcasts.'),
      hash: z.string().describe('Its hash, known before it is sent.'),
      ...SignedFields,
    }),
  // A signed transaction can be broadcast by anyone, through any node: signing it is spending.
  // Deterministic (RFC 6979), so idempotent.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  consent: 'policy',
  handler: async ({ address, unsigned_tx, network, max_fee_wei }, { services, authority }) => {
    const { signTransaction } = await import('../../domain/evm/sign.js');
    const signed = await signTransaction(services, {
      unsigned: unsigned_tx,
      from: address,
      network,
      maxFee: max_fee_wei,
      authority,
    });
    return { signed_tx: signed.signed, hash: signed.hash, ...signedFields(signed) };
  },
  audit: async ({ address, unsigned_tx, network }, output) => ({
    network,
    from: output?.from ?? address,
    ...gistFields(await readableGist(unsigned_tx, 'unsigned_tx')),
    hash: output?.hash,
    signed_only: true,
  }),
});

/** A transaction's gist for the audit line and the confirmation; undefined when it does not decode. */
async function readableGist(hex: string, field: string): Promise<TransactionGist | undefined> {
  const { transactionGist } = await import('../../domain/evm/transaction.js');
  try {
    return transactionGist(hex, field);
  } catch {
    return undefined;
  }
}

function gistFields(gist: TransactionGist | undefined) {
  if (!gist) return {};
  return {
    amount: gist.value.toString(),
    unit: 'wei' as const,
    recipient: gist.to ?? '(contract creation)',
    fee: gist.maxFee.toString(),
  };
}

export const evmTxSend = defineTool({
  name: 'evm_tx_send',
  group: 'evm_tx',
  outcome: 'sent',
  title: 'Send a signed EVM transaction',
  summary: 'Broadcast a signed transaction, optionally wait',
  description: [
    "Broadcasts signed_tx through the network's node after checking that the transaction's chain id",
    "and the node's are the network's own. Sending the same transaction again is harmless (it is not",
    'broadcast twice). With wait, polls for the receipt and reports progress; the answer then says',
    'success or reverted, the block, gas used and the fee paid. Refused (POLICY_VIOLATION, not sent) when',
    "the network's spending policy (docs/POLICY.md) forbids the payment.",
    '',
    'Example: wallet evm-tx-send --signed-tx <signed_tx from evm-tx-sign> --network sepolia --wait',
  ].join('\n'),
  input: () =>
    z.strictObject({
      signed_tx: HexData.describe('Signed transaction, hex. evm-tx-sign gives it, serialized.'),
      network: RequiredEvmNetwork,
      wait: Wait,
      wait_seconds: WaitSeconds,
      max_fee_wei: MaxFee,
    }),
  output: () => z.object({ ...StatusFields, ...SignedFields, network: z.string().describe('The EVM network.') }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  consent: 'policy',
  handler: async (
    { signed_tx, network, wait, wait_seconds, max_fee_wei },
    { services, signal, progress, authority },
  ) => {
    const { sendTransaction } = await import('../../domain/evm/send.js');
    const sent = await sendTransaction(
      services,
      { signed: signed_tx, network, wait, waitSeconds: wait_seconds, maxFee: max_fee_wei, authority },
      { signal, progress },
    );
    return { ...statusFields(sent), ...signedFields(sent), network };
  },
  audit: async ({ network, signed_tx }, output) => ({
    network,
    ...gistFields(await readableGist(signed_tx, 'signed_tx')),
    from: output?.from,
    hash: output?.hash,
  }),
});

export const evmTxGet = defineTool({
  name: 'evm_tx_get',
  group: 'evm_tx',
  title: 'Look up an EVM transaction',
  summary: 'Get a transaction and its receipt by hash',
  description: [
    "Asks the network's node for a transaction and its receipt. status is not_found when the node",
    'has never seen the hash, pending while it waits in the mempool, then success or reverted, with',
    'the block, confirmations, gas used and the fee paid.',
    '',
    'Example: wallet evm-tx-get --hash <hash from evm-tx-send> --network sepolia',
  ].join('\n'),
  input: () => z.strictObject({ hash: TxHash, network: OptionalEvmNetwork }),
  output: () =>
    z.object({
      ...StatusFields,
      status: z
        .enum(['not_found', 'pending', 'success', 'reverted'])
        .describe('not_found, pending, success or reverted.'),
      network: z.string().describe('The EVM network asked.'),
      from: z.string().nullable().describe('The sender; null when not found.'),
      to: z.string().nullable().describe('The recipient; null for a deployment or when not found.'),
      value_wei: WeiAmount.nullable().describe('The value, in wei; null when not found.'),
      nonce: z.int().nullable().describe("The sender's nonce; null when not found."),
      data: z.string().nullable().describe('The calldata; null when not found.'),
      confirmations: z.int().nullable().describe('Blocks since it was mined, counting its own; 0 while pending.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ hash, network }, { services, signal }) => {
    const { getTransaction } = await import('../../domain/evm/status.js');
    const found = await getTransaction(services, { hash, network }, signal);
    if (!found.found) {
      return {
        hash: found.hash,
        status: 'not_found' as const,
        network: found.network,
        block_number: null,
        gas_used: null,
        fee_wei: null,
        contract_address: null,
        from: null,
        to: null,
        value_wei: null,
        nonce: null,
        data: null,
        confirmations: null,
      };
    }
    return {
      ...statusFields(found),
      network: found.network,
      from: found.from,
      to: found.to,
      value_wei: found.value.toString(),
      nonce: found.nonce,
      data: found.data,
      confirmations: Number(found.confirmations),
    };
  },
});

export const evmFundsSend = defineTool({
  name: 'evm_funds_send',
  group: 'evm_tx',
  outcome: 'sent',
  dryRunField: 'dry_run',
  feeField: { field: 'max_fee_wei', atMost: true },
  title: 'Send ether',
  summary: 'Pay ether in one call (create, sign, send)',
  description: [
    'Creates, signs and sends a payment of value_wei from a keystore account to to, with calldata if',
    'given: the three steps of evm-tx-create, evm-tx-sign and evm-tx-send in one call, unlocking once.',
    'With dry_run nothing is signed or sent: the answer shows the nonce, gas and most the fee can be.',
    'Checks the node serves the network named, and that the account can pay value plus fee. Refused',
    "(POLICY_VIOLATION naming the rule, nothing signed) when the network's spending policy",
    '(docs/POLICY.md) forbids the payment; a dry run is refused the same way.',
    '',
    'Example: wallet evm-funds-send --address savings --to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --value-wei 1000000000000000 --network sepolia --wait',
  ].join('\n'),
  input: () =>
    z.strictObject({
      address: From,
      to: EvmAddressOrAlias.describe("Recipient or contract called. An address, or a keystore account's alias."),
      value_wei: Wei.describe('Value in wei (digits).'),
      data: HexData.optional(),
      network: RequiredEvmNetwork,
      dry_run: z.boolean().default(false).describe('Plan only. Show nonce, gas and fee; sign and send nothing.'),
      wait: Wait,
      wait_seconds: WaitSeconds,
      max_fee_wei: MaxFee,
    }),
  output: () =>
    z.object({
      ...PlanFields,
      ...PaymentFields,
    }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  consent: 'policy',
  handler: async (input, { services, signal, progress, authority }) => {
    const { sendFunds } = await import('../../domain/evm/pay.js');
    const { plan, sent } = await sendFunds(
      services,
      {
        authority,
        from: input.address,
        to: input.to,
        value: input.value_wei,
        data: input.data,
        network: input.network,
        dryRun: input.dry_run,
        wait: input.wait,
        waitSeconds: input.wait_seconds,
        maxFee: input.max_fee_wei,
      },
      { signal, progress },
    );
    if (!sent) {
      return {
        ...planFields(plan),
        sent: false,
        hash: null,
        status: 'planned' as const,
        block_number: null,
        gas_used: null,
        fee_wei: null,
      };
    }
    const status = statusFields(sent);
    return {
      ...planFields(plan),
      sent: true,
      hash: status.hash,
      status: status.status,
      block_number: status.block_number,
      gas_used: status.gas_used,
      fee_wei: status.fee_wei,
    };
  },
  audit: (input, output) => ({
    network: input.network,
    from: output?.from ?? input.address,
    amount: input.value_wei,
    unit: 'wei',
    recipient: output?.to ?? input.to,
    hash: output?.hash ?? undefined,
    dry_run: input.dry_run || undefined,
  }),
});

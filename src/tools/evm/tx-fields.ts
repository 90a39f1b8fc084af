import { z } from 'zod';
import type { EvmTxPlan } from '../../domain/evm/plan.js';
import type { TxStatus } from '../../domain/evm/status.js';
import type { SignedTx } from '../../domain/evm/transaction.js';
import type { TxPlanned } from '../../domain/evm/sign.js';
import { formatEther } from '../../shared/amounts.js';
import { coinsOf, tokenUnitsOf, WeiAmount, WeiPerGas } from '../fields.js';

// What the EVM transaction tools say of a plan, a status and a signed transaction, and how.

export const PlanFields = {
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

export function planFields(plan: EvmTxPlan) {
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

export const StatusFields = {
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

/** A planned transaction (a dry run of evm_tx_sign or evm_tx_send) as {@link signedFields} shows a signed one, with its simulation. */
export async function plannedFields(plan: TxPlanned) {
  const { assetChangesOutput } = await import('../../domain/evm/simulate.js');
  return {
    hash: plan.hash,
    from: plan.from,
    to: plan.to,
    chain_id: plan.chainId,
    nonce: plan.nonce,
    value_wei: plan.value.toString(),
    max_fee_wei: plan.maxFee.toString(),
    asset_changes: assetChangesOutput(plan.simulation, plan.from),
  };
}

export const SignedFields = {
  from: z.string().describe('The signer.'),
  to: z.string().nullable().describe('The recipient; null for a contract deployment.'),
  chain_id: z.int().describe('The chain id signed into it.'),
  nonce: z.int().describe("The signer's nonce."),
  value_wei: WeiAmount.describe('The value, in wei.'),
  max_fee_wei: WeiAmount.describe('The most the fee can be, in wei.'),
};

export function signedFields(signed: SignedTx) {
  return {
    from: signed.from,
    to: signed.to,
    chain_id: signed.chainId,
    nonce: signed.nonce,
    value_wei: signed.value.toString(),
    max_fee_wei: signed.maxFee.toString(),
  };
}

/** What a call would do to balances and allowances, from a simulation on the node (src/domain/evm/simulate.ts). */
export const AssetChangesField = z
  .union([
    z.object({
      simulated: z.literal(true).describe('True: the node simulated the call.'),
      method: z.enum(['eth_simulateV1', 'debug_traceCall']).describe('The node method that simulated it.'),
      reverts: z.string().nullable().describe('Why the call would revert (then nothing changes); null if it succeeds.'),
      balances: z
        .array(
          z.object({
            holder: z.string().describe('Whose balance changes.'),
            signer: z.boolean().describe('Whether it is the signer.'),
            asset: z.string().describe('"ether", or the ERC-20 token contract.'),
            delta: z
              .string()
              .describe('The change in wei or token base units, signed ("-1000"); the fee not included.'),
          }),
        )
        .describe('Ether and ERC-20 balance changes, the signer first.'),
      allowances: z
        .array(
          z.object({
            token: z.string().describe('The ERC-20 token contract.'),
            owner: z.string().describe('Whose tokens.'),
            spender: z.string().describe('Who may then move them.'),
            amount: tokenUnitsOf('token').describe('The allowance the call sets, in token base units.'),
          }),
        )
        .describe('ERC-20 allowances the call sets.'),
    }),
    z.object({
      simulated: z.literal(false).describe('False: the node could not simulate the call.'),
      reason: z
        .string()
        .describe('Why the node could not simulate it (no eth_simulateV1 nor debug_traceCall, a timeout).'),
    }),
  ])
  .optional()
  .describe(
    'What the call would do to ether and ERC-20 balances and allowances, simulated on the latest block (eth_simulateV1, else debug_traceCall); simulated false: could not simulate. Shown for a dry run.',
  );

import { z } from 'zod';
import { defineTool } from '../define.js';
import { OptionalEvmNetwork, TxHash, WeiAmount } from '../fields.js';
import { StatusFields, statusFields } from './tx-fields.js';

// The handler imports its EVM domain module (and with it viem) on its first call, not when a
// Dash call starts the CLI.

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

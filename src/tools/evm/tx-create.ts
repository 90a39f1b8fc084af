import { z } from 'zod';
import { defineTool } from '../define.js';
import { Digits, EvmAddressOrAlias, HexData, RequiredEvmNetwork, Wei } from '../fields.js';
import { PlanFields, planFields } from './tx-fields.js';

// The handler imports its EVM domain module (and with it viem) on its first call, not when a
// Dash call starts the CLI.

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

import { z } from 'zod';
import { defineTool } from '../define.js';
import { HexData, RequiredEvmNetwork } from '../fields.js';
import { SignedFields, signedFields, StatusFields, statusFields } from './tx-fields.js';
import { gistFields, readableGist } from './tx-gist.js';
import { MaxFee, Wait, WaitSeconds } from './tx-inputs.js';

// The handler imports its EVM domain module (and with it viem) on its first call, not when a
// Dash call starts the CLI.

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
  precheck: async ({ signed_tx, network }, { services }) => {
    const { checkTransactionBeforeAsking } = await import('../../domain/evm/sign.js');
    await checkTransactionBeforeAsking(services, { hex: signed_tx, field: 'signed_tx', network });
  },
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

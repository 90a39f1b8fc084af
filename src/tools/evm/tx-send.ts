import { z } from 'zod';
import { defineTool } from '../define.js';
import { HexData, RequiredEvmNetwork } from '../fields.js';
import {
  AssetChangesField,
  plannedFields,
  SignedFields,
  signedFields,
  StatusFields,
  statusFields,
} from './tx-fields.js';
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
    "the network's spending policy (docs/POLICY.md) forbids the payment, or the token moves a simulation",
    'of it on the node shows; INVALID_PARAM (not sent) when another transaction of the account went out',
    'with its nonce in the last two minutes. With dry_run it broadcasts nothing: it makes the same checks',
    'and shows asset_changes (ether and ERC-20 balance changes and allowances, or that it could not',
    'simulate).',
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
      dry_run: z.boolean().default(false).describe('Plan only. Check, simulate (asset_changes); send nothing.'),
    }),
  output: () =>
    z.object({
      ...StatusFields,
      status: z
        .enum(['planned', 'pending', 'success', 'reverted'])
        .describe('planned (dry run), pending (not mined yet, or not waited for), success or reverted.'),
      ...SignedFields,
      network: z.string().describe('The EVM network.'),
      asset_changes: AssetChangesField,
    }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  consent: 'policy',
  dryRunField: 'dry_run',
  feeField: { field: 'max_fee_wei', atMost: true },
  handler: async (
    { signed_tx, network, wait, wait_seconds, max_fee_wei, dry_run },
    { services, signal, progress, authority },
  ) => {
    if (dry_run) {
      const { planSending } = await import('../../domain/evm/send.js');
      const plan = await planSending(services, { signed: signed_tx, network, maxFee: max_fee_wei }, signal);
      const fields = await plannedFields(plan);
      return {
        ...fields,
        hash: plan.hash ?? '',
        status: 'planned' as const,
        block_number: null,
        gas_used: null,
        fee_wei: null,
        contract_address: null,
        network,
      };
    }
    const { sendTransaction } = await import('../../domain/evm/send.js');
    const sent = await sendTransaction(
      services,
      { signed: signed_tx, network, wait, waitSeconds: wait_seconds, maxFee: max_fee_wei, authority },
      { signal, progress },
    );
    return { ...statusFields(sent), ...signedFields(sent), network };
  },
  audit: async ({ network, signed_tx, dry_run }, output) => ({
    network,
    dry_run: dry_run || undefined,
    ...gistFields(await readableGist(signed_tx, 'signed_tx')),
    from: output?.from,
    hash: output?.hash,
  }),
});

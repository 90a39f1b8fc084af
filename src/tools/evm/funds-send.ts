import { z } from 'zod';
import { defineTool } from '../define.js';
import { EvmAddressOrAlias, HexData, RequiredEvmNetwork, Wei } from '../fields.js';
import { AssetChangesField, PaymentFields, PlanFields, planFields, statusFields } from './tx-fields.js';
import { From, MaxFee, Wait, WaitSeconds } from './tx-inputs.js';

// The handler imports its EVM domain module (and with it viem) on its first call, not when a
// Dash call starts the CLI.

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
    'With dry_run nothing is signed or sent: the answer shows the nonce, gas and most the fee can be,',
    'and asset_changes: the ether and ERC-20 balance changes and allowances a simulation of the call on',
    'the node shows (or that it could not simulate).',
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
      asset_changes: AssetChangesField,
    }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  consent: 'policy',
  handler: async (input, { services, signal, progress, authority }) => {
    const { sendFunds } = await import('../../domain/evm/pay.js');
    const { assetChangesOutput } = await import('../../domain/evm/simulate.js');
    const { plan, sent, simulation } = await sendFunds(
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
    const assetChanges = simulation ? { asset_changes: assetChangesOutput(simulation, plan.from) } : {};
    if (!sent) {
      return {
        ...assetChanges,
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
      ...assetChanges,
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

import { z } from 'zod';
import { TOKEN_UNITS_PATTERN } from '../../domain/evm/amount.js';
import { formatUnits } from '../../shared/amounts.js';
import { ALIAS_PATTERN } from '../../domain/keystore/keystore-format.js';
import { defineTool } from '../define.js';
import {
  coinsOf,
  EvmAccount,
  EvmAddress,
  EvmAddressOrAlias,
  RequiredEvmNetwork,
  tokenUnits,
  tokenUnitsOf,
  WeiAmount,
  WeiPerGas,
} from '../fields.js';
import { AssetChangesField, PaymentFields, statusFields } from './tx-fields.js';
import { MaxFee, Wait, WaitSeconds } from './tx-inputs.js';

/** The EVM domain (and viem) load on a call's first use. */
const tokens = () => import('../../domain/evm/tokens.js');

const ADDRESS_SHAPE = /^0x[0-9a-fA-F]{40}$/;

/** What the audit line may say of an argument that failed before it was read: only a validated shape. */
function addressOrUndefined(text: string): string | undefined {
  return ADDRESS_SHAPE.test(text) ? text : undefined;
}

export const evmTokenTransfer = defineTool({
  name: 'evm_token_transfer',
  group: 'evm_tx',
  outcome: 'sent',
  title: 'Send ERC-20 tokens',
  summary: 'Send an ERC-20 token amount in one call',
  description: [
    "Transfers amount (in the token's base units) of the ERC-20 contract token from a keystore account",
    "to to: reads the token's symbol and decimals and the sender's token balance, then creates, signs",
    'and sends a transaction to the token contract (value 0, transfer(to, amount) calldata), as',
    'evm-funds-send would. With dry_run nothing is signed or sent, and asset_changes shows what a',
    'simulation of the call on the node does to balances (or that it could not). Refused with INVALID_PARAM when',
    'token is no ERC-20 contract on the network or amount is 0, with INSUFFICIENT_FUNDS when the',
    "sender holds fewer tokens (or cannot pay the gas), and with POLICY_VIOLATION when the network's",
    'spending policy (docs/POLICY.md) forbids it. Amounts are base units: 1.5 tokens of a token with',
    '6 decimals is "1500000" (evm-balance-get with token shows the decimals).',
    '',
    'Example: wallet evm-token-transfer --address savings --token 0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238 --to 0x70997970C51812dc3A010C7d01b50e0d17dc79C8 --amount 1500000 --network sepolia --wait',
  ].join('\n'),
  input: () =>
    z.strictObject({
      address: EvmAccount.describe('The sending account. A keystore address or alias.'),
      token: EvmAddress.describe('The ERC-20 token contract.'),
      to: EvmAddressOrAlias.describe("The recipient of the tokens. An address, or a keystore account's alias."),
      amount: tokenUnitsOf('token')
        .regex(TOKEN_UNITS_PATTERN, 'a whole number of token base units in digits, e.g. "1500000"')
        .describe("Token base units, digits. The token's smallest unit: 1.5 tokens of 6 decimals is 1500000."),
      network: RequiredEvmNetwork,
      dry_run: z.boolean().default(false).describe('Plan only. Show nonce, gas and fee; sign and send nothing.'),
      wait: Wait,
      wait_seconds: WaitSeconds,
      max_fee_wei: MaxFee,
    }),
  output: () =>
    z.object({
      network: z.string().describe('The EVM network.'),
      chain_id: z.int().describe('Its chain id, as signed into the transaction.'),
      from: z.string().describe('The sender.'),
      to: z.string().describe('The recipient of the tokens.'),
      token: z.string().describe('The token contract, checksummed: the transaction goes to it.'),
      token_symbol: z.string().nullable().describe("The token's symbol; null if it has none readable."),
      token_decimals: z.int().describe("The token's decimals."),
      amount: tokenUnits('token_decimals', 'token_symbol').describe('The amount sent, in token base units (digits).'),
      token_amount: coinsOf('amount').describe('The amount sent, in whole tokens (decimal).'),
      data: z.string().describe('The calldata: transfer(to, amount).'),
      nonce: z.int().describe("The sender's nonce."),
      gas_limit: z.string().describe("The gas limit (the node's estimate)."),
      max_fee_per_gas: WeiPerGas.describe('EIP-1559 max fee per gas, in wei.'),
      max_priority_fee_per_gas: WeiPerGas.describe('EIP-1559 priority fee (tip) per gas, in wei.'),
      max_fee_wei: WeiAmount.describe('The most the fee can be: gas limit × max fee per gas, in wei.'),
      ...PaymentFields,
      asset_changes: AssetChangesField,
    }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  consent: 'policy',
  dryRunField: 'dry_run',
  feeField: { field: 'max_fee_wei', atMost: true },
  handler: async (input, { services, signal, progress, authority }) => {
    const { transferToken } = await tokens();
    const transfer = await transferToken(
      services,
      {
        from: input.address,
        token: input.token,
        to: input.to,
        amount: input.amount,
        network: input.network,
        dryRun: input.dry_run,
        wait: input.wait,
        waitSeconds: input.wait_seconds,
        maxFee: input.max_fee_wei,
        authority,
      },
      { signal, progress },
    );
    const { plan, sent, simulation } = transfer;
    const status = sent ? statusFields(sent) : undefined;
    const { assetChangesOutput } = await import('../../domain/evm/simulate.js');
    return {
      ...(simulation ? { asset_changes: assetChangesOutput(simulation, plan.from) } : {}),
      network: plan.network,
      chain_id: plan.chainId,
      from: plan.from,
      to: transfer.to,
      token: transfer.token,
      token_symbol: transfer.symbol,
      token_decimals: transfer.decimals,
      amount: transfer.amount.toString(),
      token_amount: formatUnits(transfer.amount, transfer.decimals),
      data: plan.data,
      nonce: plan.nonce,
      gas_limit: plan.gasLimit.toString(),
      max_fee_per_gas: plan.maxFeePerGas.toString(),
      max_priority_fee_per_gas: plan.maxPriorityFeePerGas.toString(),
      max_fee_wei: plan.maxFee.toString(),
      sent: sent !== null,
      hash: status?.hash ?? null,
      status: status?.status ?? ('planned' as const),
      block_number: status?.block_number ?? null,
      gas_used: status?.gas_used ?? null,
      fee_wei: status?.fee_wei ?? null,
    };
  },
  // Only what validated: the checksummed values of the answer, else an argument of an address's
  // (or an alias's) shape. The amount is in the token's base units (`unit: 'token'`).
  audit: (input, output) => ({
    network: input.network,
    amount: /^\d+$/.test(input.amount) ? input.amount : undefined,
    unit: 'token',
    token: output?.token ?? addressOrUndefined(input.token),
    from: output?.from ?? (ALIAS_PATTERN.test(input.address) ? input.address : addressOrUndefined(input.address)),
    recipient: output?.to ?? addressOrUndefined(input.to),
    hash: output?.hash ?? undefined,
    dry_run: input.dry_run || undefined,
  }),
});

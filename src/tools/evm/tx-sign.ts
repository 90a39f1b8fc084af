import { z } from 'zod';
import { defineTool } from '../define.js';
import { HexData, RequiredEvmNetwork } from '../fields.js';
import { AssetChangesField, plannedFields, SignedFields, signedFields } from './tx-fields.js';
import { gistFields, readableGist } from './tx-gist.js';
import { From, MaxFee } from './tx-inputs.js';

// The handler imports its EVM domain module (and with it viem) on its first call, not when a
// Dash call starts the CLI.

export const evmTxSign = defineTool({
  name: 'evm_tx_sign',
  group: 'evm_tx',
  outcome: 'signed',
  title: 'Sign an EVM transaction',
  summary: 'Sign an unsigned transaction',
  description: [
    'Signs unsigned_tx (from evm-tx-create, or any legacy EIP-155, EIP-2930 or EIP-1559 transaction)',
    'with a keystore account. The transaction must carry the chain id of the network named',
    '(NETWORK_MISMATCH otherwise), so it cannot be replayed elsewhere. Needs the keystore passphrase.',
    "Returns signed_tx for evm-tx-send and its hash. The network's spending policy (docs/POLICY.md)",
    'applies here already: a refused payment is not signed, and a signed one counts towards the',
    '24-hour cap. Without a policy it signs offline; with one it first asks the node to simulate the',
    'transaction, and token moves the simulation shows are held to the token caps too. With dry_run it',
    'signs nothing: it makes the same checks and shows the simulation (asset_changes: ether and ERC-20',
    'balance changes and allowances, or that it could not simulate).',
    '',
    'Example: wallet evm-tx-sign --address savings --unsigned-tx <unsigned_tx from evm-tx-create> --network sepolia',
  ].join('\n'),
  input: () =>
    z.strictObject({
      address: From.describe('The signing account. A keystore address or alias.'),
      unsigned_tx: HexData.describe('Unsigned transaction, hex. evm-tx-create gives it, serialized.'),
      network: RequiredEvmNetwork,
      max_fee_wei: MaxFee,
      dry_run: z.boolean().default(false).describe('Plan only. Check, simulate (asset_changes); sign nothing.'),
    }),
  output: () =>
    z.object({
      signed_tx: z
        .string()
        .nullable()
        .describe('The signed transaction, serialized hex: what evm-tx-send broadcasts; null for a dry run.'),
      hash: z.string().nullable().describe('Its hash, known before it is sent; null for a dry run.'),
      ...SignedFields,
      asset_changes: AssetChangesField,
    }),
  // A signed transaction can be broadcast by anyone, through any node: signing it is spending.
  // Deterministic (RFC 6979), so idempotent.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  consent: 'policy',
  dryRunField: 'dry_run',
  feeField: { field: 'max_fee_wei', atMost: true },
  handler: async ({ address, unsigned_tx, network, max_fee_wei, dry_run }, { services, authority, signal }) => {
    if (dry_run) {
      const { planSigning } = await import('../../domain/evm/sign.js');
      const plan = await planSigning(
        services,
        { unsigned: unsigned_tx, from: address, network, maxFee: max_fee_wei },
        signal,
      );
      return { signed_tx: null, ...(await plannedFields(plan)) };
    }
    const { signTransaction } = await import('../../domain/evm/sign.js');
    const signed = await signTransaction(
      services,
      {
        unsigned: unsigned_tx,
        from: address,
        network,
        maxFee: max_fee_wei,
        authority,
      },
      signal,
    );
    return { signed_tx: signed.signed, hash: signed.hash, ...signedFields(signed) };
  },
  audit: async ({ address, unsigned_tx, network, dry_run }, output) => ({
    network,
    from: output?.from ?? address,
    ...gistFields(await readableGist(unsigned_tx, 'unsigned_tx')),
    hash: output?.hash ?? undefined,
    signed_only: true,
    dry_run: dry_run || undefined,
  }),
});

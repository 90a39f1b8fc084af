import { z } from 'zod';
import { DEFAULT_MAX_FEE_DUFFS } from '../../domain/dash/amount.js';
import { defineTool } from '../define.js';
import { DuffsAmount, RequiredCoreNetwork, WalletId } from '../fields.js';
import { outputAddresses, readableGist } from './tx-gist.js';
import { MaxFee, optionalDuffs } from './tx-inputs.js';

// The handler imports its domain module (and with it @scure/btc-signer) on its first call, not
// when an address is made.

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

import { z } from 'zod';
import { defineTool } from '../define.js';
import { DuffsAmount, RequiredCoreNetwork } from '../fields.js';
import { outputAddresses, readableGist } from './tx-gist.js';
import { MaxFee, optionalDuffs } from './tx-inputs.js';

// The handler imports its domain module (and with it @scure/btc-signer) on its first call, not
// when an address is made.

export const coreTxSend = defineTool({
  name: 'core_tx_send',
  group: 'core_funds',
  outcome: 'sent',
  title: 'Broadcast a transaction',
  summary: 'Broadcast a signed transaction (fee-capped)',
  description: [
    "Broadcasts a signed raw transaction through the network's backend. First it checks that the",
    'backend serves network, looks up every coin the transaction spends, and refuses (POLICY_VIOLATION)',
    "when the fee is above max_fee_duffs or the network's spending policy (docs/POLICY.md) forbids the",
    'payment. Irreversible once accepted. amount_duffs and recipients count only outputs to addresses',
    "outside this keystore's wallets of that network. With a shared state store, BUSY (not sent) when",
    'another payment holds a coin it spends.',
    '',
    'Example: wallet core-tx-send --network testnet --hex 0300000001…',
  ].join('\n'),
  input: () =>
    z.strictObject({
      network: RequiredCoreNetwork,
      hex: z.string().min(20).max(2_000_000).describe("The signed transaction, hex. core-tx-sign's hex."),
      max_fee_duffs: MaxFee,
    }),
  output: () =>
    z.object({
      txid: z.string().describe('The transaction id the backend accepted.'),
      fee_duffs: DuffsAmount.describe("The fee, from the backend's view of the coins spent."),
      size_bytes: z.int().describe('The size in bytes.'),
      amount_duffs: DuffsAmount.describe(
        "What it pays to addresses outside this keystore's wallets of that network, in duffs.",
      ),
      recipients: z.array(z.string()).describe('Those addresses.'),
    }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  consent: 'policy',
  handler: async ({ network, hex, max_fee_duffs }, { services, signal, authority }) => {
    const { sendTransaction } = await import('../../domain/dash/send.js');
    const sent = await sendTransaction(services, {
      network,
      hex,
      maxFee: optionalDuffs(max_fee_duffs, 'max_fee_duffs'),
      signal,
      authority,
    });
    return {
      txid: sent.txid,
      fee_duffs: sent.fee.toString(),
      size_bytes: sent.size,
      amount_duffs: sent.paid.toString(),
      recipients: sent.recipients,
    };
  },
  audit: async ({ network, hex }, output) => ({
    network,
    amount: output?.amount_duffs,
    unit: 'duffs',
    // Before the broadcast (the confirmation, a failure) every output is listed, change included.
    recipient: output?.recipients ?? outputAddresses(await readableGist({ hex }, network)),
    txid: output?.txid,
  }),
});

import { z } from 'zod';
import { defineTool } from '../define.js';
import { DuffsAmount, OptionalCoreNetwork, WalletId } from '../fields.js';

export const coreUtxosList = defineTool({
  name: 'core_utxos_list',
  group: 'core_funds',
  title: 'List unspent coins',
  summary: "List a wallet's unspent outputs (UTXOs)",
  description: [
    "Lists the unspent outputs paying to the wallet's addresses, from the network's backend, with",
    'their height (null while unconfirmed) and whether they can be spent now (young coinbase outputs',
    'cannot). Amounts in duffs.',
    '',
    'Example: wallet core-utxos-list --wallet-id main --json',
  ].join('\n'),
  input: () => z.strictObject({ wallet_id: WalletId, network: OptionalCoreNetwork }),
  output: () =>
    z.object({
      wallet_id: z.string().describe("The wallet's fingerprint."),
      network: z.string().describe("The wallet's network."),
      tip_height: z.int().describe("The backend's chain height."),
      total_duffs: DuffsAmount.describe('Sum of all listed outputs.'),
      spendable_duffs: DuffsAmount.describe('Sum of the outputs spendable now.'),
      utxos: z
        .array(
          z.object({
            txid: z.string().describe('Transaction id.'),
            vout: z.int().describe('Output index.'),
            address: z.string().describe('The wallet address it pays.'),
            path: z.string().describe("That address's derivation path."),
            amount_duffs: DuffsAmount.describe('Value in duffs.'),
            height: z.int().nullable().describe('Block height; null while in the mempool.'),
            spendable: z.boolean().describe('False for coinbase outputs younger than 100 blocks.'),
          }),
        )
        .describe('The unspent outputs.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ wallet_id, network }, { services, signal }) => {
    const { walletUtxos } = await import('../../domain/dash/balances.js');
    const { entry, utxos, tip } = await walletUtxos(services, wallet_id, network, signal);
    return {
      wallet_id: entry.id,
      network: entry.network,
      tip_height: tip,
      total_duffs: utxos.reduce((sum, u) => sum + u.amount, 0n).toString(),
      spendable_duffs: utxos
        .filter((u) => u.spendable)
        .reduce((sum, u) => sum + u.amount, 0n)
        .toString(),
      utxos: utxos.map((u) => ({
        txid: u.txid,
        vout: u.vout,
        address: u.address,
        path: u.path,
        amount_duffs: u.amount.toString(),
        height: u.height,
        spendable: u.spendable,
      })),
    };
  },
});

import { z } from 'zod';
import { formatDash } from '../../shared/amounts.js';
import { defineTool } from '../define.js';
import { coinsOf, DuffsAmount, OptionalCoreNetwork, WalletId } from '../fields.js';

export const coreBalancesGet = defineTool({
  name: 'core_balances_get',
  title: 'Wallet balance',
  summary: "Get a wallet's confirmed and unconfirmed balance",
  description: [
    "Sums the balance of every address the wallet has handed out, asking the network's backend:",
    'confirmed, unconfirmed (mempool) and total, in duffs (1 DASH = 100000000), plus each address',
    'that holds or awaits coins. No passphrase needed. A core-rpc node without -addressindex sees no',
    'mempool: unconfirmed is then 0.',
    '',
    'Example: wallet core-balances-get --wallet-id main',
  ].join('\n'),
  input: z.strictObject({ wallet_id: WalletId, network: OptionalCoreNetwork }),
  output: z.object({
    wallet_id: z.string().describe("The wallet's fingerprint."),
    network: z.string().describe("The wallet's network."),
    confirmed_duffs: DuffsAmount.describe('Confirmed balance in duffs.'),
    unconfirmed_duffs: DuffsAmount.describe('Net unconfirmed (mempool) change in duffs; may be negative.'),
    total_duffs: DuffsAmount.describe('Confirmed plus unconfirmed, in duffs.'),
    total_dash: coinsOf('total_duffs').describe('The total in DASH, exact, for display.'),
    backend: z.string().describe('The backend kind asked (core-rpc or insight).'),
    addresses: z
      .array(
        z.object({
          address: z.string().describe('The address.'),
          path: z.string().describe('Its derivation path.'),
          confirmed_duffs: DuffsAmount.describe('Its confirmed balance.'),
          unconfirmed_duffs: DuffsAmount.describe('Its unconfirmed change.'),
        }),
      )
      .describe('Addresses with a non-zero balance.'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ wallet_id, network }, { services, signal }) => {
    const { walletBalances } = await import('../../domain/core/balances.js');
    const balances = await walletBalances(services, wallet_id, network, signal);
    const total = balances.confirmed + balances.unconfirmed;
    return {
      wallet_id: balances.entry.id,
      network: balances.entry.network,
      confirmed_duffs: balances.confirmed.toString(),
      unconfirmed_duffs: balances.unconfirmed.toString(),
      total_duffs: total.toString(),
      total_dash: formatDash(total),
      backend: balances.backend.kind,
      addresses: balances.addresses
        .filter((a) => a.confirmed !== 0n || a.unconfirmed !== 0n)
        .map((a) => ({
          address: a.address,
          path: a.path,
          confirmed_duffs: a.confirmed.toString(),
          unconfirmed_duffs: a.unconfirmed.toString(),
        })),
    };
  },
});

export const coreUtxosList = defineTool({
  name: 'core_utxos_list',
  title: 'List unspent coins',
  summary: "List a wallet's unspent outputs (UTXOs)",
  description: [
    "Lists the unspent outputs paying to the wallet's addresses, from the network's backend, with",
    'their height (null while unconfirmed) and whether they can be spent now (young coinbase outputs',
    'cannot). Amounts in duffs.',
    '',
    'Example: wallet core-utxos-list --wallet-id main --json',
  ].join('\n'),
  input: z.strictObject({ wallet_id: WalletId, network: OptionalCoreNetwork }),
  output: z.object({
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
    const { walletUtxos } = await import('../../domain/core/balances.js');
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

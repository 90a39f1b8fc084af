import { z } from 'zod';
import { formatDash } from '../../shared/amounts.js';
import { WalletError } from '../../domain/errors.js';
import { defineTool } from '../define.js';
import { coinsOf, CoreAddress, DuffsAmount, OptionalCoreNetwork, WalletId } from '../fields.js';
import { describedWithBrief } from '../lean-schema.js';

export const coreBalancesGet = defineTool({
  name: 'core_balances_get',
  group: 'core_funds',
  title: 'Wallet or address balance',
  summary: 'Get a wallet or address balance',
  description: [
    "Sums the balance of every address the wallet has handed out, asking the network's backend:",
    'confirmed, unconfirmed (mempool) and total, in duffs (1 DASH = 100000000), plus each address',
    'that holds or awaits coins. No passphrase needed. A core-rpc node without -addressindex sees no',
    'mempool (it scans the UTXO set with scantxoutset): unconfirmed is then 0.',
    '',
    'With address instead of wallet_id: the balance of that one address, any address of the network,',
    'no wallet needed (wallet_id is then null, the address its only row). Without network, an',
    "address's network is the default one when the address belongs to it, else the one its prefix",
    'names (X/7 mainnet, y/8 testnet).',
    '',
    'Example: wallet core-balances-get --wallet-id main',
    'Example: wallet core-balances-get --address XoJA8qE3N2Y3jMLEtZ3vcN42qseZ8LvFf5',
  ].join('\n'),
  input: () =>
    z.strictObject({
      wallet_id: WalletId,
      address: describedWithBrief(
        CoreAddress.optional(),
        "Any Dash address of the network: its own balance instead of a wallet's. Not with wallet_id.",
        // Its name and the summary say it all: every byte of the lean list is paid by every agent.
        '',
      ),
      network: OptionalCoreNetwork,
    }),
  output: () =>
    z.object({
      wallet_id: z.string().nullable().describe("The wallet's fingerprint; null for an address's balance."),
      network: z.string().describe('The network asked.'),
      confirmed_duffs: DuffsAmount.describe('Confirmed balance in duffs.'),
      unconfirmed_duffs: DuffsAmount.describe('Net unconfirmed (mempool) change in duffs; may be negative.'),
      total_duffs: DuffsAmount.describe('Confirmed plus unconfirmed, in duffs.'),
      total_dash: coinsOf('total_duffs').describe('The total in DASH, exact, for display.'),
      backend: z.string().describe('The backend kind asked (core-rpc or insight).'),
      addresses: z
        .array(
          z.object({
            address: z.string().describe('The address.'),
            path: z.string().nullable().describe('Its derivation path; null for an address asked by itself.'),
            confirmed_duffs: DuffsAmount.describe('Its confirmed balance.'),
            unconfirmed_duffs: DuffsAmount.describe('Its unconfirmed change.'),
          }),
        )
        .describe("A wallet's addresses with a non-zero balance, or the address asked."),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ wallet_id, address, network }, { services, signal }) => {
    const { addressBalance, walletBalances } = await import('../../domain/dash/balances.js');
    if (address !== undefined) {
      if (wallet_id !== undefined) {
        throw new WalletError('INVALID_PARAM', 'Pass wallet_id or address, not both.', {
          hint: "`address` reads one address's balance; `wallet_id` sums a wallet's.",
        });
      }
      const balance = await addressBalance(services, address, network, signal);
      const total = balance.confirmed + balance.unconfirmed;
      const row = {
        address: balance.address,
        path: null,
        confirmed_duffs: balance.confirmed.toString(),
        unconfirmed_duffs: balance.unconfirmed.toString(),
      };
      return {
        wallet_id: null,
        network: balance.network,
        confirmed_duffs: row.confirmed_duffs,
        unconfirmed_duffs: row.unconfirmed_duffs,
        total_duffs: total.toString(),
        total_dash: formatDash(total),
        backend: balance.backend.kind,
        addresses: [row],
      };
    }
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

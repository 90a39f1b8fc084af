import { z } from 'zod';
import { defineTool } from '../define.js';
import { OptionalCoreNetwork, WalletId } from '../fields.js';

/** The wallet's addresses (HD derivation, the keystore) load on a call's first use, not at start-up. */
const addresses = () => import('../../domain/dash/addresses.js');
const wallets = () => import('../../domain/wallet/wallets.js');

export const coreAddressesDiscover = defineTool({
  name: 'core_addresses_discover',
  group: 'core_address',
  title: 'Discover used addresses',
  summary: 'Scan the chain for used addresses (BIP44 gap limit)',
  description: [
    "Asks the network's backend which of the wallet's addresses were used, walking the receive and",
    'change chains in windows of 20 (the BIP44 gap limit) until 20 in a row are unused, and raises',
    "the wallet's address counts past every used one (never lowering them). Run after an import or",
    'a restore. With a core-rpc node without -addressindex the scan (scantxoutset) sees only',
    'addresses that still hold coins; history says which kind of scan ran.',
    '',
    'Example: wallet core-addresses-discover --wallet-id old',
  ].join('\n'),
  input: () => z.strictObject({ wallet_id: WalletId, network: OptionalCoreNetwork }),
  output: () =>
    z.object({
      wallet_id: z.string().describe("The wallet's fingerprint."),
      network: z.string().describe("The wallet's network."),
      receive_addresses: z.int().describe('Receive addresses handed out after discovery.'),
      change_addresses: z.int().describe('Change addresses used after discovery.'),
      scanned: z.int().describe('How many addresses were checked.'),
      history: z
        .enum(['history', 'unspent-only'])
        .describe('history: any past use counts; unspent-only: only addresses holding coins were seen.'),
    }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ wallet_id, network }, { services, progress, signal }) => {
    const [{ openWallet }, { discoverAddresses }] = await Promise.all([wallets(), addresses()]);
    const entry = await openWallet(services, wallet_id, network);
    const { backendFor } = await import('../../domain/dash/network.js');
    const result = await discoverAddresses(services, entry, await backendFor(services, entry.network), {
      progress,
      signal,
    });
    return {
      wallet_id: result.entry.id,
      network: result.entry.network,
      receive_addresses: result.entry.account.next_receive,
      change_addresses: result.entry.account.next_change,
      scanned: result.scanned,
      history: result.historyKind,
    };
  },
});

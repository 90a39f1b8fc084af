import { z } from 'zod';
import { defineTool } from '../define.js';
import { OptionalCoreNetwork, WalletId } from '../fields.js';
import { AddressRow } from './address-row.js';

/** The wallet's addresses (HD derivation, the keystore) load on a call's first use, not at start-up. */
const addresses = () => import('../../domain/dash/addresses.js');
const wallets = () => import('../../domain/wallet/wallets.js');

export const coreAddressesList = defineTool({
  name: 'core_addresses_list',
  group: 'core_address',
  title: 'List addresses',
  summary: "List a wallet's receive and change addresses",
  description: [
    'Lists the addresses the wallet has handed out (receive chain) and used for change, with their',
    'paths. Derived from the account xpub; no passphrase, no network access.',
    '',
    'Example: wallet core-addresses-list --wallet-id main --chain receive',
  ].join('\n'),
  input: () =>
    z.strictObject({
      wallet_id: WalletId,
      network: OptionalCoreNetwork,
      chain: z.enum(['receive', 'change']).optional().describe('Only this chain; both when omitted.'),
    }),
  output: () =>
    z.object({
      wallet_id: z.string().describe("The wallet's fingerprint."),
      network: z.string().describe("The wallet's network."),
      addresses: z
        .array(z.object({ ...AddressRow, chain: z.enum(['receive', 'change']).describe('receive or change.') }))
        .describe('Receive addresses first, each chain by index.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ wallet_id, network, chain }, { services }) => {
    const [{ openWallet }, { issuedAddresses }] = await Promise.all([wallets(), addresses()]);
    const entry = await openWallet(services, wallet_id, network);
    return {
      wallet_id: entry.id,
      network: entry.network,
      addresses: await issuedAddresses(services, entry, chain ? [chain] : undefined),
    };
  },
});

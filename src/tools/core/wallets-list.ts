import { z } from 'zod';
import { defineTool } from '../define.js';
import { WalletFields, walletFields } from './wallet-fields.js';

/** The keystore and HD derivation load on a call's first use, not when another tool's call starts. */
const walletList = () => import('../../domain/wallet/wallets.js');

export const coreWalletsList = defineTool({
  name: 'core_wallets_list',
  group: 'core_wallet',
  title: 'List Dash wallets',
  summary: 'List the Dash wallets in the keystore',
  description: [
    'Lists every wallet in the keystore with its alias, fingerprint (wallet_id), network, account',
    'xpub and how many receive and change addresses it has handed out. Needs no passphrase and',
    'never shows a secret. Keystore files that cannot be read are listed in unreadable_files.',
    '',
    'Example: wallet core-wallets-list',
  ].join('\n'),
  input: () => z.strictObject({}),
  output: () =>
    z.object({
      wallets: z
        .array(z.object({ ...WalletFields, created_at: z.string().describe('When the wallet was added (ISO 8601).') }))
        .describe('The wallets, by alias.'),
      unreadable_files: z.array(z.string()).describe('Keystore files that are damaged or of an unknown format.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async (_input, { services }) => {
    const { listWallets } = await walletList();
    const { wallets, unreadable } = await listWallets(services);
    return {
      wallets: wallets.map((wallet) => ({ ...walletFields(wallet), created_at: wallet.createdAt })),
      unreadable_files: unreadable,
    };
  },
});

import { z } from 'zod';
import { defineTool } from '../define.js';
import { RequiredCoreNetwork, WalletId } from '../fields.js';

/** The keystore and HD derivation load on a call's first use, not when another tool's call starts. */
const wallets = () => import('../../domain/wallet/wallets.js');

export const coreWalletDelete = defineTool({
  name: 'core_wallet_delete',
  group: 'core_wallet',
  title: 'Delete a Dash wallet',
  summary: 'Delete a wallet from the keystore (irreversible)',
  description: [
    'Removes a wallet from the keystore for good. Without a backup of its mnemonic its funds are',
    "lost. Three checks first: network must be the wallet's, confirm_fingerprint must be its",
    'fingerprint (wallet_id in core-wallets-list), and the keystore passphrase must unlock it.',
    '',
    'Example: wallet core-wallet-delete --wallet-id old --network testnet --confirm-fingerprint 73c5da0a',
  ].join('\n'),
  input: () =>
    z.strictObject({
      wallet_id: WalletId,
      network: RequiredCoreNetwork,
      confirm_fingerprint: z
        .string()
        .min(1)
        .max(16)
        .describe("The wallet's fingerprint, to confirm. Type out its 8 hex digits."),
    }),
  output: () =>
    z.object({
      deleted: z.boolean().describe('True: the wallet is gone.'),
      wallet_id: z.string().describe('The fingerprint of the deleted wallet.'),
      alias: z.string().describe('The alias it had.'),
      network: z.string().describe('Its network.'),
    }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  // Irreversible, and its confirmation is readable by any caller of core_wallets_list: never autonomous.
  consent: 'human',
  precheck: async ({ wallet_id, network, confirm_fingerprint }, { services }) => {
    const { walletToDelete } = await wallets();
    await walletToDelete(services, { walletId: wallet_id, network, confirmFingerprint: confirm_fingerprint });
  },
  handler: async ({ wallet_id, network, confirm_fingerprint }, { services }) => {
    const { deleteWallet } = await wallets();
    const entry = await deleteWallet(services, {
      walletId: wallet_id,
      network,
      confirmFingerprint: confirm_fingerprint,
    });
    return { deleted: true, wallet_id: entry.id, alias: entry.alias, network: entry.network };
  },
  audit: (input, output) => ({ network: input.network, wallet_id: output?.wallet_id ?? input.wallet_id }),
});

import { z } from 'zod';
import { defineTool } from '../define.js';
import { WalletId, secretString } from '../fields.js';

/** The keystore and HD derivation load on a call's first use, not when another tool's call starts. */
const passphrase = () => import('../../domain/wallet/passphrase.js');

export const coreWalletPassphraseChange = defineTool({
  name: 'core_wallet_passphrase_change',
  group: 'core_wallet',
  title: 'Change the keystore passphrase',
  summary: 'Re-encrypt the keystore under a new passphrase (local only)',
  description: [
    'The keystore has one passphrase: every wallet and imported EVM key is sealed with it. This',
    're-encrypts all of them under new_passphrase, all or nothing: each file is opened with the',
    'current passphrase first, the new files are written beside the old ones, and only then',
    'renamed over them; on any failure nothing changes and the old passphrase keeps working.',
    '',
    'A keystore from before the one-passphrase rule may hold a wallet sealed with a passphrase of',
    "its own: bring it over with wallet_id, starting the CLI with that wallet's passphrase and",
    'giving the keystore passphrase as new_passphrase.',
    '',
    'Local CLI only: new_passphrase is a secret, read from a hidden prompt, --new-passphrase-stdin',
    'or --new-passphrase-file <owner-only file>.',
    '',
    'Example: wallet core-wallet-passphrase-change --passphrase-file ./old --new-passphrase-file ./new',
  ].join('\n'),
  input: () =>
    z.strictObject({
      new_passphrase: secretString('The new keystore passphrase, 8 characters or more.'),
      wallet_id: WalletId.describe(
        'Only this wallet: one sealed with a passphrase of its own, brought to the keystore passphrase.',
      ),
    }),
  output: () =>
    z.object({
      wallets: z.array(z.string()).describe('The aliases of the wallets re-encrypted.'),
      imported_keys: z.int().describe('How many imported EVM keys were re-encrypted.'),
    }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  localOnly: true,
  handler: async ({ new_passphrase, wallet_id }, { services }) => {
    const { changeKeystorePassphrase } = await passphrase();
    const changed = await changeKeystorePassphrase(services, { newPassphrase: new_passphrase, walletId: wallet_id });
    return { wallets: changed.wallets.map((entry) => entry.alias), imported_keys: changed.keys };
  },
});

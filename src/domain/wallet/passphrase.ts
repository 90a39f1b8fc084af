import { WalletError } from '../errors.js';
import type { WalletEntry } from '../keystore/wallet-record.js';
import { MIN_PASSPHRASE_LENGTH, type WalletServices } from '../services.js';

// The keystore's one passphrase: what seals a new wallet or key, and changing it for every file.

/**
 * The passphrase a new wallet or key is sealed with: the keystore has one. With nothing sealed
 * yet it is a new one (asked twice, 8+ characters); otherwise it is the keystore's, checked
 * against an existing file, so a second wallet never gets a passphrase of its own.
 */
export async function keystorePassphraseToSeal(services: WalletServices): Promise<string> {
  const empty = (await services.keystore.checkPassphrase('')) === 'empty';
  if (empty) return services.passphrase('new');
  const passphrase = await services.passphrase('unlock');
  if ((await services.keystore.checkPassphrase(passphrase)) === 'wrong') {
    throw new WalletError(
      'WALLET_LOCKED',
      'That is not the keystore passphrase: the keystore has one passphrase for every wallet and key; nothing was added.',
      {
        hint: 'Give the passphrase the existing wallets open with; core_wallet_passphrase_change changes it for all of them.',
      },
    );
  }
  return passphrase;
}

/**
 * Re-encrypts the keystore under `newPassphrase`, all or nothing. Without `walletId`: every
 * wallet and imported key, which must all open with the current passphrase. With `walletId`: that
 * wallet only, opened with the current passphrase (its own, from before the keystore had one) and
 * sealed with `newPassphrase`, which must be the passphrase the rest of the keystore opens with.
 */
export async function changeKeystorePassphrase(
  services: WalletServices,
  request: { newPassphrase: string; walletId: string | undefined },
): Promise<{ wallets: WalletEntry[]; keys: number }> {
  if (request.newPassphrase.length < MIN_PASSPHRASE_LENGTH) {
    throw new WalletError(
      'INVALID_PARAM',
      `new_passphrase must have at least ${MIN_PASSPHRASE_LENGTH} characters; nothing was changed.`,
    );
  }
  const only = request.walletId === undefined ? undefined : await services.keystore.resolve(request.walletId);
  const current = await services.passphrase('unlock');
  if (only !== undefined) {
    const { entries } = await services.keystore.list();
    const others = entries.filter((entry) => entry.id !== only.id || entry.network !== only.network);
    const reference = others[0];
    if (
      reference !== undefined &&
      (await services.keystore.unlock(reference, request.newPassphrase).then(
        () => false,
        () => true,
      ))
    ) {
      throw new WalletError(
        'WALLET_LOCKED',
        `new_passphrase does not open wallet '${reference.alias}': bringing one wallet over, give the keystore passphrase; nothing was changed.`,
        { hint: 'Omit wallet_id to change the passphrase of the whole keystore instead.' },
      );
    }
  }
  const changed = await services.keystore
    .changePassphrase(current, request.newPassphrase, only)
    .catch((error: unknown) => {
      if (error instanceof WalletError && error.code === 'WALLET_LOCKED' && only === undefined) {
        throw new WalletError('WALLET_LOCKED', `${error.message} Nothing was changed.`, {
          hint: 'A wallet sealed with another passphrase: bring it over first with core_wallet_passphrase_change and its wallet_id (started with its own passphrase).',
          cause: error,
        });
      }
      throw error;
    });
  return { wallets: changed.wallets, keys: changed.keys.length };
}

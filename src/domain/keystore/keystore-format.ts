import { join } from 'node:path';
import { z } from 'zod';

/** What every keystore file shares: alias rules and the sealed-secret block (see cipher.ts). */
export const ALIAS_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;

export const Sealed = z.strictObject({
  kdf: z.literal('scrypt'),
  kdfparams: z.strictObject({
    n: z.int().positive(),
    r: z.int().positive(),
    p: z.int().positive(),
    dklen: z.int().positive(),
    salt: z.base64(),
  }),
  cipher: z.literal('aes-256-gcm'),
  iv: z.base64(),
  ciphertext: z.base64(),
  tag: z.base64(),
});

/** The keystore's folder in a data directory. */
export const KEYSTORE_DIR_NAME = 'keystore';

/** A wallet's keystore file, in the keystore folder: `<fingerprint>-<network>.json`. */
export function walletFileName(entry: { readonly id: string; readonly network: string }): string {
  return `${entry.id}-${entry.network}.json`;
}

/** The path of a wallet's keystore file in the data directory `dataDir`. */
export function walletFilePath(dataDir: string, entry: { readonly id: string; readonly network: string }): string {
  return join(dataDir, KEYSTORE_DIR_NAME, walletFileName(entry));
}

/**
 * The options of every `KEYSTORE_DAMAGED`: the file cannot be trusted, its backup can.
 *
 * @example
 * throw new WalletError('KEYSTORE_DAMAGED', `The keystore file ${path} is not valid JSON.`, RESTORE);
 */
export const RESTORE = {
  hint: 'Restore the file from a backup, or import the secret again (core_wallet_import, evm_account_import).',
} as const;

/**
 * A name the user gave, fit to repeat in a message: an alias, a fingerprint or an address as
 * written; anything else (a key or mnemonic pasted into the wrong field) is never echoed.
 */
export function shownName(text: string): string {
  return ALIAS_PATTERN.test(text) || /^[0-9a-fA-F]{8}$/.test(text) || /^0x[0-9a-fA-F]{40}$/.test(text)
    ? `'${text}'`
    : '(a name not shown: it does not look like an alias, fingerprint or address)';
}

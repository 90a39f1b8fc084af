import { WalletError } from '../errors.js';
import { open } from './cipher.js';
import { importedKeyPath, walletPath } from './files.js';
import { openImportedKey, type ImportedKeyEntry } from './imported-keys.js';
import { RESTORE } from './keystore-format.js';
import { listImportedKeys, listWallets } from './listing.js';
import { associatedData, Plaintext, type WalletEntry, type WalletSecret } from './wallet-record.js';

// Sealed secrets opened: a wallet's mnemonic, an imported key, and whether a passphrase is the keystore's.

/** Decrypts a wallet's secret; `WALLET_LOCKED` when the passphrase is wrong or the file was altered. */
export async function unlockWallet(dir: string, entry: WalletEntry, passphrase: string): Promise<WalletSecret> {
  return openWalletSecret(`keystore file ${walletPath(dir, entry)}`, entry, passphrase);
}

/** A wallet's secret opened; `where` names its record (`keystore file <path>`, a row of the store). */
export async function openWalletSecret(where: string, entry: WalletEntry, passphrase: string): Promise<WalletSecret> {
  const text = await openSealed(where, () =>
    open(entry.crypto, passphrase, associatedData(entry, entry.crypto.kdfparams)),
  );
  if (text === undefined) {
    throw new WalletError(
      'WALLET_LOCKED',
      `Cannot unlock wallet '${entry.alias}': wrong passphrase, or its keystore file was altered.`,
      {
        hint: 'Give the passphrase the wallet was created with (`passphrase_file`, `passphrase_stdin` or the prompt).',
      },
    );
  }
  const parsed = Plaintext.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new WalletError('KEYSTORE_DAMAGED', `Wallet '${entry.alias}' decrypted to an unexpected shape.`, RESTORE);
  return { mnemonic: parsed.data.mnemonic, mnemonicPassphrase: parsed.data.mnemonic_passphrase };
}

/** An imported key's private key; `WALLET_LOCKED` when the passphrase is wrong or the file was altered. */
export async function unlockImportedKey(dir: string, key: ImportedKeyEntry, passphrase: string): Promise<Uint8Array> {
  return openImportedKeySecret(`keystore file ${importedKeyPath(dir, key)}`, key, passphrase);
}

/** An imported key's private key opened; `where` names its record. */
export async function openImportedKeySecret(
  where: string,
  key: ImportedKeyEntry,
  passphrase: string,
): Promise<Uint8Array> {
  const privateKey = await openSealed(where, () => openImportedKey(key, passphrase));
  if (!privateKey) {
    throw new WalletError(
      'WALLET_LOCKED',
      `Cannot unlock the key of ${key.address}: wrong passphrase, or its keystore file was altered.`,
      { hint: 'Give the keystore passphrase (`passphrase_file`, `passphrase_stdin` or the prompt).' },
    );
  }
  return privateKey;
}

/**
 * Whether `passphrase` is the keystore's: it opens the first sealed file (a wallet, else an
 * imported key). `empty` when the keystore holds none yet (any passphrase may start it).
 */
export async function checkPassphrase(dir: string, passphrase: string): Promise<'ok' | 'wrong' | 'empty'> {
  const { entries } = await listWallets(dir);
  const [wallet] = entries;
  if (wallet) return checkWalletPassphrase(`keystore file ${walletPath(dir, wallet)}`, wallet, passphrase);
  const { keys } = await listImportedKeys(dir);
  const [key] = keys;
  if (!key) return 'empty';
  return checkKeyPassphrase(`keystore file ${importedKeyPath(dir, key)}`, key, passphrase);
}

/** Whether `passphrase` opens this wallet's sealed secret (`where` names its record). */
export async function checkWalletPassphrase(
  where: string,
  wallet: WalletEntry,
  passphrase: string,
): Promise<'ok' | 'wrong'> {
  const opened = await openSealed(where, () =>
    open(wallet.crypto, passphrase, associatedData(wallet, wallet.crypto.kdfparams)),
  );
  return opened === undefined ? 'wrong' : 'ok';
}

/** Whether `passphrase` opens this imported key (`where` names its record). */
export async function checkKeyPassphrase(
  where: string,
  key: ImportedKeyEntry,
  passphrase: string,
): Promise<'ok' | 'wrong'> {
  const opened = await openSealed(where, () => openImportedKey(key, passphrase));
  return opened === undefined ? 'wrong' : 'ok';
}

/** A sealed secret of the record `where` opened; the cipher's refusal of it names the record. */
async function openSealed<T>(where: string, opening: () => Promise<T>): Promise<T> {
  try {
    return await opening();
  } catch (error) {
    if (!(error instanceof WalletError && error.code === 'KEYSTORE_DAMAGED')) throw error;
    throw new WalletError('KEYSTORE_DAMAGED', `The ${where}: ${error.message}`, {
      ...RESTORE,
      cause: error,
    });
  }
}

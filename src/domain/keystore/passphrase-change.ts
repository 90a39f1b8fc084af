import { ensurePrivateDir } from '../../shared/private-files.js';
import { WalletError } from '../errors.js';
import { seal } from './cipher.js';
import { commitStaged, removeStaleStaging, stage, type StagedFile } from './commit.js';
import { importedKeyPath, serialize, walletPath } from './files.js';
import { sealImportedKey, type ImportedKeyEntry } from './imported-keys.js';
import { RESTORE } from './keystore-format.js';
import { listImportedKeys, listWallets, type KeystoreListing } from './listing.js';
import { locked } from './locked.js';
import { openImportedKeySecret, openWalletSecret } from './unlock.js';
import { associatedData, type WalletEntry } from './wallet-record.js';

// Every sealed file of the keystore re-sealed under a new passphrase, all or nothing.

/**
 * Re-seals every wallet and imported key (or only the wallet `only`) from `current` to `next`,
 * all or nothing, under the keystore lock: each file is opened first (one that does not open
 * with `current` stops everything), the new files are written beside the old ones and synced,
 * and only then renamed over them; a failure before the renames removes the new files, one
 * during them puts back the files already replaced. The old passphrase keeps working until the
 * change is complete.
 */
export async function changePassphrase(
  dir: string,
  current: string,
  next: string,
  only?: WalletEntry,
): Promise<{ wallets: WalletEntry[]; keys: ImportedKeyEntry[] }> {
  ensurePrivateDir(dir);
  return locked(dir, async () => {
    return resealAll(dir, current, next, only).catch(async (error: unknown) => {
      removeStaleStaging(dir);
      throw error;
    });
  });
}

/**
 * What a passphrase change re-seals, whichever backend lists it: every wallet and imported key,
 * or only the wallet `only`. A whole-keystore change refuses (KEYSTORE_DAMAGED) while any record
 * cannot be read, since it would be left under the old passphrase.
 */
export function resealTargets(
  listed: KeystoreListing,
  listedKeys: { keys: ImportedKeyEntry[]; unreadable: string[] },
  only: WalletEntry | undefined,
): { wallets: WalletEntry[]; keys: ImportedKeyEntry[] } {
  const unreadable = [...listed.unreadable, ...listedKeys.unreadable];
  if (only === undefined && unreadable.length > 0) {
    throw new WalletError(
      'KEYSTORE_DAMAGED',
      `Cannot re-encrypt the keystore: ${unreadable.join(', ')} cannot be read; nothing was changed.`,
      RESTORE,
    );
  }
  return {
    wallets:
      only === undefined
        ? listed.entries
        : listed.entries.filter((entry) => entry.id === only.id && entry.network === only.network),
    keys: only === undefined ? listedKeys.keys : [],
  };
}

async function resealAll(
  dir: string,
  current: string,
  next: string,
  only: WalletEntry | undefined,
): Promise<{ wallets: WalletEntry[]; keys: ImportedKeyEntry[] }> {
  const { wallets, keys } = resealTargets(await listWallets(dir), await listImportedKeys(dir), only);
  const staged: StagedFile[] = [];
  const resealedWallets: WalletEntry[] = [];
  const resealedKeys: ImportedKeyEntry[] = [];
  for (const wallet of wallets) {
    const resealed = await resealWallet(`keystore file ${walletPath(dir, wallet)}`, wallet, current, next);
    resealedWallets.push(resealed);
    staged.push(await stage(dir, walletPath(dir, wallet), serialize(resealed)));
  }
  for (const key of keys) {
    const resealed = await resealKey(`keystore file ${importedKeyPath(dir, key)}`, key, current, next);
    resealedKeys.push(resealed);
    staged.push(await stage(dir, importedKeyPath(dir, key), serialize(resealed)));
  }
  await commitStaged(staged, dir);
  return { wallets: resealedWallets, keys: resealedKeys };
}

/** A wallet's record with its secret opened by `current` and sealed again under `next`. */
export async function resealWallet(
  where: string,
  wallet: WalletEntry,
  current: string,
  next: string,
): Promise<WalletEntry> {
  const secret = await openWalletSecret(where, wallet, current);
  const plaintext = JSON.stringify({ mnemonic: secret.mnemonic, mnemonic_passphrase: secret.mnemonicPassphrase });
  const crypto = await seal(plaintext, next, (kdf) => associatedData(wallet, kdf));
  return { ...wallet, crypto };
}

/** An imported key's record with its key opened by `current` and sealed again under `next`. */
export async function resealKey(
  where: string,
  key: ImportedKeyEntry,
  current: string,
  next: string,
): Promise<ImportedKeyEntry> {
  const privateKey = await openImportedKeySecret(where, key, current);
  try {
    const sealed = await sealImportedKey({ address: key.address, alias: key.alias, privateKey, passphrase: next });
    return { ...sealed, created_at: key.created_at };
  } finally {
    privateKey.fill(0);
  }
}

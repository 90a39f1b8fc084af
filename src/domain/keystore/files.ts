import { basename, join } from 'node:path';
import { readPrivateText } from '../../shared/private-files.js';
import { asWalletError, WalletError } from '../errors.js';
import { importedKeyFileName, type ImportedKeyEntry } from './imported-keys.js';
import { RESTORE, walletFileName } from './keystore-format.js';
import { EntrySchema, MAX_ISSUED_ADDRESSES, VERSION, type WalletEntry } from './wallet-record.js';

// One keystore file: where it lives, its text read safely, a wallet's file checked, a record's text.

export function walletPath(dir: string, entry: Pick<WalletEntry, 'id' | 'network'>): string {
  return join(dir, walletFileName(entry));
}

export function importedKeyPath(dir: string, key: Pick<ImportedKeyEntry, 'address'>): string {
  return join(dir, importedKeyFileName(key.address));
}

export async function readWalletFile(path: string): Promise<WalletEntry> {
  const text = readKeystoreText(path);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WalletError('KEYSTORE_DAMAGED', `The keystore file ${path} is not valid JSON.`, RESTORE);
  }
  const parsed = EntrySchema.safeParse(json);
  if (!parsed.success) {
    const index = parsed.error.issues.find(
      (issue) =>
        issue.code === 'too_big' && (issue.path.includes('next_receive') || issue.path.includes('next_change')),
    );
    if (index) {
      throw new WalletError(
        'KEYSTORE_DAMAGED',
        `The keystore file ${path} has ${String(index.path.at(-1))} above ${MAX_ISSUED_ADDRESSES}, the most addresses an account issues: it is damaged or was altered.`,
        {
          hint: 'Restore it from a backup, or re-import the mnemonic (core_wallet_import) and run core_addresses_discover.',
        },
      );
    }
    throw new WalletError(
      'KEYSTORE_DAMAGED',
      `The keystore file ${path} is not a wallet entry of format ${VERSION}.`,
      RESTORE,
    );
  }
  // The file's name says its wallet and network: a field edited in place no longer matches it.
  const expected = walletFileName(parsed.data);
  if (basename(path) !== expected) {
    throw new WalletError(
      'KEYSTORE_DAMAGED',
      `The keystore file ${path} says wallet ${parsed.data.id} on ${parsed.data.network}, which belongs in ${expected}.`,
      RESTORE,
    );
  }
  return parsed.data;
}

/** Whether the keystore file at `path` names `alias` (false when it cannot be read or parsed). */
export function namesAlias(path: string, alias: string): boolean {
  try {
    return (JSON.parse(readKeystoreText(path)) as { alias?: unknown }).alias === alias;
  } catch {
    return false;
  }
}

/**
 * A keystore file's text, opened without following a link and refused unless it is a private
 * regular file of this user (`KEYSTORE_DAMAGED` naming it); `ENOENT` when there is none.
 */
export function readKeystoreText(path: string): string {
  try {
    return readPrivateText(path);
  } catch (error) {
    throw asWalletError(error);
  }
}

export function serialize(entry: WalletEntry | ImportedKeyEntry): string {
  return `${JSON.stringify(entry, null, 2)}\n`;
}

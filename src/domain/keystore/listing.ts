import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { hasSystemCode, WalletError } from '../errors.js';
import { IMPORTED_KEY_FILE, parseImportedKey, type ImportedKeyEntry } from './imported-keys.js';
import { RESTORE } from './keystore-format.js';
import { readKeystoreText, readWalletFile } from './files.js';
import { settle } from './locked.js';
import { WALLET_FILE, type WalletEntry } from './wallet-record.js';

// The keystore folder listed: every wallet, every imported key, the files that cannot be read.

export type KeystoreListing = { entries: WalletEntry[]; unreadable: string[] };

/** Every wallet, sorted by alias; files that cannot be read are named, not fatal. */
export async function listWallets(dir: string): Promise<KeystoreListing> {
  const { items: entries, unreadable } = await readAll(dir, WALLET_FILE, (path) => readWalletFile(path));
  entries.sort((a, b) => a.alias.localeCompare(b.alias));
  return { entries, unreadable };
}

/** Every imported EVM key, sorted by address; unreadable files are named, not fatal. */
export async function listImportedKeys(dir: string): Promise<{ keys: ImportedKeyEntry[]; unreadable: string[] }> {
  const { items: keys, unreadable } = await readAll(dir, IMPORTED_KEY_FILE, async (path) => {
    const key = parseImportedKey(JSON.parse(readKeystoreText(path)));
    if (!key) throw new WalletError('KEYSTORE_DAMAGED', `The keystore file ${path} is not an imported key.`, RESTORE);
    return key;
  });
  return { keys, unreadable };
}

async function readAll<T>(
  dir: string,
  pattern: RegExp,
  read: (path: string) => Promise<T>,
): Promise<{ items: T[]; unreadable: string[] }> {
  await settle(dir);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if (hasSystemCode(error, 'ENOENT')) return { items: [], unreadable: [] };
    throw error;
  }
  const items: T[] = [];
  const unreadable: string[] = [];
  for (const name of names.filter((candidate) => pattern.test(candidate)).sort()) {
    const item = await read(join(dir, name)).catch(() => undefined);
    if (item) items.push(item);
    else unreadable.push(join(dir, name));
  }
  return { items, unreadable };
}

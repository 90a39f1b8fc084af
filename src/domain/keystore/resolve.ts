import { basename } from 'node:path';
import { CORE_NETWORKS } from '../config/networks.js';
import { hasSystemCode, WalletError } from '../errors.js';
import { shownName } from './keystore-format.js';
import { namesAlias, readWalletFile, walletPath } from './files.js';
import { listWallets } from './listing.js';
import { settle } from './locked.js';
import { FINGERPRINT_PATTERN, type WalletEntry } from './wallet-record.js';

// A wallet named by alias or fingerprint, found in as few files as can be.

/**
 * The wallet named by alias or fingerprint, or `WALLET_NOT_FOUND` listing the known aliases. A
 * fingerprint names its files directly and an alias seen before names its file (`aliasPaths`), so
 * a call reads one file, not every wallet's; only an alias not seen yet (or a miss) lists the keystore.
 */
export async function resolveWallet(
  dir: string,
  aliasPaths: Map<string, string>,
  walletId: string,
): Promise<WalletEntry> {
  await settle(dir);
  const id = walletId.trim();
  const direct = await resolveDirectly(dir, aliasPaths, id);
  if (direct) return direct;
  const { entries, unreadable } = await listWallets(dir);
  for (const entry of entries) aliasPaths.set(entry.alias, walletPath(dir, entry));
  const found = findListed(entries, id);
  if (found) return found;
  await refuseDamaged(unreadable, id);
  throw notFound(entries, unreadable, id, dir);
}

/**
 * The wallet of `entries` named by alias or fingerprint `id`, or undefined; a fingerprint of
 * several wallets (one seed on several networks) is refused, naming them.
 */
export function findListed(entries: readonly WalletEntry[], id: string): WalletEntry | undefined {
  const byAlias = entries.find((entry) => entry.alias === id);
  if (byAlias) return byAlias;
  const byFingerprint = entries.filter((entry) => entry.id === id.toLowerCase());
  if (byFingerprint.length === 1 && byFingerprint[0]) return byFingerprint[0];
  if (byFingerprint.length > 1) {
    throw new WalletError(
      'INVALID_PARAM',
      `wallet_id ${id} is the fingerprint of ${byFingerprint.length} wallets (${byFingerprint.map((e) => `${e.alias} on ${e.network}`).join(', ')}).`,
      { hint: 'Name the wallet by its alias.' },
    );
  }
  return undefined;
}

/** `WALLET_NOT_FOUND` for `id` in the keystore `where`, listing the known aliases and what cannot be read. */
export function notFound(
  entries: readonly WalletEntry[],
  unreadable: readonly string[],
  id: string,
  where: string,
): WalletError {
  const known = entries.map((entry) => entry.alias);
  const damaged = unreadable.length > 0 ? ` Unreadable keystore files: ${unreadable.join(', ')}.` : '';
  const advice =
    known.length > 0
      ? `Known wallets: ${known.join(', ')}.`
      : 'Create one with core_wallet_create or core_wallet_import.';
  return new WalletError('WALLET_NOT_FOUND', `No wallet ${shownName(id)} in ${where}.`, {
    hint: `${advice}${damaged}`,
  });
}

/**
 * When the wallet asked for is one of the unreadable files (its name starts with the
 * fingerprint, or it still names the alias), its own `KEYSTORE_DAMAGED`: "restore it", not "no such wallet".
 */
async function refuseDamaged(unreadable: readonly string[], id: string): Promise<void> {
  for (const path of unreadable) {
    const named = basename(path).startsWith(`${id.toLowerCase()}-`) || namesAlias(path, id);
    if (!named) continue;
    const error = await readWalletFile(path).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    if (error instanceof WalletError && error.code === 'KEYSTORE_DAMAGED') throw error;
  }
}

/** The wallet a fingerprint or a remembered alias names, from its own file; undefined when unsure. */
async function resolveDirectly(
  dir: string,
  aliasPaths: Map<string, string>,
  id: string,
): Promise<WalletEntry | undefined> {
  const read = (path: string): Promise<WalletEntry | undefined> =>
    readWalletFile(path).catch((error: unknown) => {
      if (hasSystemCode(error, 'ENOENT')) return undefined;
      throw error;
    });
  if (FINGERPRINT_PATTERN.test(id.toLowerCase())) {
    const fingerprint = id.toLowerCase();
    const found: WalletEntry[] = [];
    for (const network of CORE_NETWORKS) {
      const entry = await read(walletPath(dir, { id: fingerprint, network }));
      if (entry) found.push(entry);
    }
    // Several networks' wallets of one seed: the listing's error names them.
    return found.length === 1 ? found[0] : undefined;
  }
  const path = aliasPaths.get(id);
  if (path === undefined) return undefined;
  const entry = await read(path);
  if (entry?.alias === id) return entry;
  aliasPaths.delete(id);
  return undefined;
}

import { dirname, join } from 'node:path';
import { advanceIndexes, reserveIndexes } from './indexes.js';
import { addEvmAccount, addImportedKey } from './evm-accounts.js';
import type { ImportedKeyEntry } from './imported-keys.js';
import { KEYSTORE_DIR_NAME } from './keystore-format.js';
import { createWalletFile, removeWalletFile } from './lifecycle.js';
import { listImportedKeys, listWallets, type KeystoreListing } from './listing.js';
import { withNamedLock } from './lock.js';
import { changePassphrase } from './passphrase-change.js';
import { resolveWallet } from './resolve.js';
import { checkPassphrase, unlockImportedKey, unlockWallet } from './unlock.js';
import type { EvmAccountRecord, NewWallet, WalletEntry, WalletSecret } from './wallet-record.js';

/**
 * What the wallet asks of a keystore, wherever its records live: the data directory's files
 * ({@link Keystore}) or the rows of a PostgreSQL state store (src/domain/state/pg/keystore.ts).
 */
export type WalletKeystore = Pick<
  Keystore,
  | 'list'
  | 'listImportedKeys'
  | 'resolve'
  | 'create'
  | 'unlock'
  | 'reserve'
  | 'advance'
  | 'addEvmAccount'
  | 'addImportedKey'
  | 'unlockImportedKey'
  | 'checkPassphrase'
  | 'changePassphrase'
  | 'withAccountLock'
  | 'withWalletLock'
  | 'remove'
>;

/**
 * The encrypted keystore: one owner-only JSON file per wallet in `<dataDir>/keystore/` (0700).
 * Every change takes the writer lock and re-reads the file it changes, so concurrent processes
 * never lose an update or hand out an address index twice. Each method is one job of a module of
 * this folder, which documents it: reading (listing.ts, resolve.ts), unlocking (unlock.ts),
 * writing (lifecycle.ts, indexes.ts, evm-accounts.ts, passphrase-change.ts).
 */
export class Keystore {
  readonly dir: string;
  /**
   * Where each alias seen was stored. An alias never moves to another file while its wallet
   * exists (aliases are unique and never renamed), and a hit is checked against the file read.
   */
  private readonly aliasPaths = new Map<string, string>();

  constructor(dataDir: string) {
    this.dir = join(dataDir, KEYSTORE_DIR_NAME);
  }

  /** Every wallet, sorted by alias; files that cannot be read are named, not fatal. */
  list(): Promise<KeystoreListing> {
    return listWallets(this.dir);
  }

  /** Every imported EVM key, sorted by address; unreadable files are named, not fatal. */
  listImportedKeys(): Promise<{ keys: ImportedKeyEntry[]; unreadable: string[] }> {
    return listImportedKeys(this.dir);
  }

  /** The wallet named by alias or fingerprint, or `WALLET_NOT_FOUND` listing the known aliases. */
  resolve(walletId: string): Promise<WalletEntry> {
    return resolveWallet(this.dir, this.aliasPaths, walletId);
  }

  /** Seals and stores a new wallet; refuses a taken alias or the same seed twice on one network. */
  create(wallet: NewWallet): Promise<WalletEntry> {
    return createWalletFile(this.dir, wallet);
  }

  /** Decrypts a wallet's secret; `WALLET_LOCKED` when the passphrase is wrong or the file was altered. */
  unlock(entry: WalletEntry, passphrase: string): Promise<WalletSecret> {
    return unlockWallet(this.dir, entry, passphrase);
  }

  /** Hands out the next `count` indexes of a chain, recorded before they are returned. */
  reserve(entry: WalletEntry, chain: 'receive' | 'change', count = 1): Promise<{ entry: WalletEntry; first: number }> {
    return reserveIndexes(this.dir, entry, chain, count);
  }

  /** Raises a chain's next index to at least `next` (discovery); never lowers it. */
  advance(entry: WalletEntry, next: { receive: number; change: number }): Promise<WalletEntry> {
    return advanceIndexes(this.dir, entry, next);
  }

  /** Records the next EVM account of a wallet's seed, storing the chain xpub on first use. */
  addEvmAccount(
    entry: WalletEntry,
    request: { xpub: string; alias: string | null; addressAt: (xpub: string, index: number) => string },
  ): Promise<{ entry: WalletEntry; account: EvmAccountRecord }> {
    return addEvmAccount(this.dir, entry, request);
  }

  /** Stores a sealed imported key; refuses an address or alias the keystore already has. */
  addImportedKey(key: ImportedKeyEntry): Promise<void> {
    return addImportedKey(this.dir, key);
  }

  /** An imported key's private key; `WALLET_LOCKED` when the passphrase is wrong or the file was altered. */
  unlockImportedKey(key: ImportedKeyEntry, passphrase: string): Promise<Uint8Array> {
    return unlockImportedKey(this.dir, key, passphrase);
  }

  /** Whether `passphrase` is the keystore's; `empty` when the keystore holds no sealed file yet. */
  checkPassphrase(passphrase: string): Promise<'ok' | 'wrong' | 'empty'> {
    return checkPassphrase(this.dir, passphrase);
  }

  /** Re-seals every wallet and imported key (or only the wallet `only`) from `current` to `next`, all or nothing. */
  changePassphrase(
    current: string,
    next: string,
    only?: WalletEntry,
  ): Promise<{ wallets: WalletEntry[]; keys: ImportedKeyEntry[] }> {
    return changePassphrase(this.dir, current, next, only);
  }

  /**
   * Runs `task` holding a lock of its own for one EVM account, so that the payments of one account
   * are planned and broadcast one at a time, across processes; other accounts are not held up.
   */
  async withAccountLock<T>(address: string, task: () => Promise<T>): Promise<T> {
    return this.withSpendLock(`evm-${address.slice(2).toLowerCase()}`, task);
  }

  /**
   * The same for one Dash wallet: its payments choose coins and a change address, sign and
   * broadcast one at a time, so two never pick the same coin.
   */
  async withWalletLock<T>(entry: WalletEntry, task: () => Promise<T>): Promise<T> {
    return this.withSpendLock(`core-${entry.id}`, task);
  }

  private async withSpendLock<T>(name: string, task: () => Promise<T>): Promise<T> {
    return withNamedLock(dirname(this.dir), name, task);
  }

  /** Deletes a wallet's file for good. */
  remove(entry: WalletEntry): Promise<void> {
    return removeWalletFile(this.dir, entry);
  }
}

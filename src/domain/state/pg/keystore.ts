import { readdirSync } from 'node:fs';
import type { PoolClient } from 'pg';
import { WalletError } from '../../errors.js';
import {
  checkImportedKeyFree,
  knownEvmAccountsOf,
  withEvmAccount,
  type EvmAccountRequest,
} from '../../keystore/evm-accounts.js';
import { IMPORTED_KEY_FILE, parseImportedKey, type ImportedKeyEntry } from '../../keystore/imported-keys.js';
import { withAdvanced, withReserved } from '../../keystore/indexes.js';
import { Keystore, type WalletKeystore } from '../../keystore/keystore.js';
import { RESTORE } from '../../keystore/keystore-format.js';
import { checkNewWallet, sealNewWallet } from '../../keystore/lifecycle.js';
import type { KeystoreListing } from '../../keystore/listing.js';
import { resealKey, resealTargets, resealWallet } from '../../keystore/passphrase-change.js';
import { findListed, notFound } from '../../keystore/resolve.js';
import {
  checkKeyPassphrase,
  checkWalletPassphrase,
  openImportedKeySecret,
  openWalletSecret,
} from '../../keystore/unlock.js';
import {
  checkAlias,
  EntrySchema,
  WALLET_FILE,
  type EvmAccountRecord,
  type NewWallet,
  type WalletEntry,
  type WalletSecret,
} from '../../keystore/wallet-record.js';
import { inTransaction, query, type PgPools } from './client.js';
import { openLedgerUpdate } from './ledger.js';

/** The key of the transaction-scoped advisory lock that serializes the keystore's writes. */
export const KEYSTORE_LOCK = 0x6b657973;

/**
 * The keystore in the state store: each wallet a row of `wallet_keystore_wallets`, each imported
 * EVM key a row of `wallet_keystore_keys`, holding exactly what its file would hold (public
 * fields, the address indexes and EVM accounts in clear, the secret sealed as in the files:
 * scrypt + AES-256-GCM under the keystore passphrase). The database sees ciphertext only; a
 * secret is opened in this replica's memory. Every write is one transaction: an index handed out
 * holds its wallet's row (`SELECT … FOR UPDATE`), so two replicas never hand out the same one; a
 * write that must see the whole keystore (a new wallet, account or key, a passphrase change, a
 * removal) holds the keystore's advisory lock too. The per-account and per-wallet payment locks
 * stay this machine's (the store's account lock is `StateStore.withAccount`).
 */
export class PgKeystore implements WalletKeystore {
  private readonly locks: Keystore;
  /** The data directory's keystore folder (not read: named in a hint when it holds files). */
  private readonly filesDir: string;

  constructor(
    private readonly pools: PgPools,
    dataDir: string,
  ) {
    this.locks = new Keystore(dataDir);
    this.filesDir = this.locks.dir;
  }

  /** Every wallet, sorted by alias; rows that do not parse are named, not fatal. */
  async list(): Promise<KeystoreListing> {
    const rows = await query(
      this.pools,
      'SELECT id, network, record FROM wallet_keystore_wallets ORDER BY alias, id, network',
    );
    return this.parseWallets(rows);
  }

  /** Every imported EVM key, sorted by address; rows that do not parse are named, not fatal. */
  async listImportedKeys(): Promise<{ keys: ImportedKeyEntry[]; unreadable: string[] }> {
    const rows = await query(this.pools, 'SELECT address, record FROM wallet_keystore_keys ORDER BY address');
    return this.parseKeys(rows);
  }

  /** The wallet named by alias or fingerprint, or `WALLET_NOT_FOUND` listing the known aliases. */
  async resolve(walletId: string): Promise<WalletEntry> {
    const id = walletId.trim();
    const { entries, unreadable } = await this.list();
    const found = findListed(entries, id);
    if (found) return found;
    const missing = notFound(entries, unreadable, id, `the keystore of the state store ${this.pools.shown}`);
    if (!hasKeystoreFiles(this.filesDir)) throw missing;
    // The wallet may be in this data directory's files, which a replica with a store does not read.
    throw new WalletError('WALLET_NOT_FOUND', missing.message, {
      hint: `${missing.hint ?? ''} ${this.filesDir} holds keystore files, which are not read while a state store is set: \`wallet state import\` moves them into the store.`.trim(),
    });
  }

  /** Seals and stores a new wallet; refuses a taken alias or the same seed twice on one network. */
  async create(wallet: NewWallet): Promise<WalletEntry> {
    const entry = await sealNewWallet(wallet);
    return this.write(async (client) => {
      checkNewWallet((await this.walletsOn(client)).entries, entry);
      await client.query(
        'INSERT INTO wallet_keystore_wallets (id, network, alias, record) VALUES ($1, $2, $3, $4::jsonb)',
        [entry.id, entry.network, entry.alias, JSON.stringify(entry)],
      );
      return entry;
    });
  }

  /** Decrypts a wallet's secret in this process; `WALLET_LOCKED` when the passphrase is wrong. */
  unlock(entry: WalletEntry, passphrase: string): Promise<WalletSecret> {
    return openWalletSecret(this.walletWhere(entry), entry, passphrase);
  }

  /** Hands out the next `count` indexes of a chain, committed before they are returned. */
  async reserve(
    entry: WalletEntry,
    chain: 'receive' | 'change',
    count = 1,
  ): Promise<{ entry: WalletEntry; first: number }> {
    const { entry: next, result } = await this.updateWallet(entry, false, (current) =>
      withReserved(current, chain, count),
    );
    return { entry: next, first: result };
  }

  /** Raises a chain's next index to at least `next` (discovery); never lowers it. */
  async advance(entry: WalletEntry, next: { receive: number; change: number }): Promise<WalletEntry> {
    const { entry: updated } = await this.updateWallet(entry, false, (current) => ({
      next: withAdvanced(current, next),
      result: undefined,
    }));
    return updated;
  }

  /** Records the next EVM account of a wallet's seed, storing the chain xpub on first use. */
  async addEvmAccount(
    entry: WalletEntry,
    request: EvmAccountRequest,
  ): Promise<{ entry: WalletEntry; account: EvmAccountRecord }> {
    if (request.alias !== null) checkAlias(request.alias);
    const { entry: next, result } = await this.updateWallet(entry, true, async (current, client) => {
      const known = knownEvmAccountsOf((await this.walletsOn(client)).entries, (await this.keysOn(client)).keys);
      return withEvmAccount(current, known, request, this.walletWhere(current));
    });
    return { entry: next, account: result };
  }

  /** Stores a sealed imported key; refuses an address or alias the keystore already has. */
  async addImportedKey(key: ImportedKeyEntry): Promise<void> {
    if (key.alias !== null) checkAlias(key.alias);
    await this.write(async (client) => {
      const known = knownEvmAccountsOf((await this.walletsOn(client)).entries, (await this.keysOn(client)).keys);
      checkImportedKeyFree(known, key);
      const address = key.address.toLowerCase();
      const inserted = await client.query(
        `INSERT INTO wallet_keystore_keys (address, alias, record) VALUES ($1, $2, $3::jsonb)
         ON CONFLICT (address) DO NOTHING`,
        [address, key.alias, JSON.stringify(key)],
      );
      // A row of that address that could not be parsed (so is not listed) is never overwritten.
      if (inserted.rowCount === 0) {
        throw new WalletError(
          'INVALID_PARAM',
          `The state store ${this.pools.shown} has a keystore row for ${key.address} that cannot be read; nothing was imported.`,
          { hint: 'Repair or delete that row of wallet_keystore_keys first.' },
        );
      }
    });
  }

  /** An imported key's private key, opened in this process. */
  unlockImportedKey(key: ImportedKeyEntry, passphrase: string): Promise<Uint8Array> {
    return openImportedKeySecret(this.keyWhere(key), key, passphrase);
  }

  /** Whether `passphrase` is the keystore's (it opens the first wallet, else the first key); `empty` with none. */
  async checkPassphrase(passphrase: string): Promise<'ok' | 'wrong' | 'empty'> {
    const [wallet] = (await this.list()).entries;
    if (wallet) return checkWalletPassphrase(this.walletWhere(wallet), wallet, passphrase);
    const [key] = (await this.listImportedKeys()).keys;
    if (!key) return 'empty';
    return checkKeyPassphrase(this.keyWhere(key), key, passphrase);
  }

  /**
   * Re-seals every wallet and imported key (or only the wallet `only`) from `current` to `next` in
   * one transaction, holding the keystore's lock: all rows change, or none.
   */
  async changePassphrase(
    current: string,
    next: string,
    only?: WalletEntry,
  ): Promise<{ wallets: WalletEntry[]; keys: ImportedKeyEntry[] }> {
    return this.write(async (client) => {
      const { wallets, keys } = resealTargets(await this.walletsOn(client), await this.keysOn(client), only);
      const resealedWallets: WalletEntry[] = [];
      const resealedKeys: ImportedKeyEntry[] = [];
      for (const wallet of wallets) {
        const resealed = await resealWallet(this.walletWhere(wallet), wallet, current, next);
        await client.query(
          'UPDATE wallet_keystore_wallets SET record = $3::jsonb, updated_at = now() WHERE id = $1 AND network = $2',
          [wallet.id, wallet.network, JSON.stringify(resealed)],
        );
        resealedWallets.push(resealed);
      }
      for (const key of keys) {
        const resealed = await resealKey(this.keyWhere(key), key, current, next);
        await client.query(
          'UPDATE wallet_keystore_keys SET record = $2::jsonb, updated_at = now() WHERE address = $1',
          [key.address.toLowerCase(), JSON.stringify(resealed)],
        );
        resealedKeys.push(resealed);
      }
      return { wallets: resealedWallets, keys: resealedKeys };
    });
  }

  /** This machine's lock of one EVM account's payments (the store's is `StateStore.withAccount`). */
  withAccountLock<T>(address: string, task: () => Promise<T>): Promise<T> {
    return this.locks.withAccountLock(address, task);
  }

  /** This machine's lock of one Dash wallet's payments. */
  withWalletLock<T>(entry: WalletEntry, task: () => Promise<T>): Promise<T> {
    return this.locks.withWalletLock(entry, task);
  }

  /** Deletes a wallet's row for good. */
  async remove(entry: WalletEntry): Promise<void> {
    await this.write(async (client) => {
      await client.query('DELETE FROM wallet_keystore_wallets WHERE id = $1 AND network = $2', [
        entry.id,
        entry.network,
      ]);
    });
  }

  /** A transaction holding the keystore's lock (writes that must see every record). */
  private write<T>(task: (client: PoolClient) => Promise<T>): Promise<T> {
    return inTransaction(this.pools, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [KEYSTORE_LOCK]);
      return task(client);
    });
  }

  /**
   * Changes a wallet's row in one transaction, holding it (`FOR UPDATE`) from the read to the
   * write, and the keystore's lock first when `whole` (the change looks at other records). Inside
   * a ledger update (a Dash payment reserving its change index as it signs) it joins that
   * transaction: one connection, and the index is used up only if the spend is recorded.
   */
  private updateWallet<T>(
    entry: WalletEntry,
    whole: boolean,
    change: (
      current: WalletEntry,
      client: PoolClient,
    ) => { next: WalletEntry; result: T } | Promise<{ next: WalletEntry; result: T }>,
  ): Promise<{ entry: WalletEntry; result: T }> {
    const task = async (client: PoolClient): Promise<{ entry: WalletEntry; result: T }> => {
      if (whole) await client.query('SELECT pg_advisory_xact_lock($1)', [KEYSTORE_LOCK]);
      const rows = await client.query(
        'SELECT id, network, record FROM wallet_keystore_wallets WHERE id = $1 AND network = $2 FOR UPDATE',
        [entry.id, entry.network],
      );
      const row = rows.rows[0] as Record<string, unknown> | undefined;
      if (!row) throw new WalletError('WALLET_NOT_FOUND', `Wallet '${entry.alias}' was deleted meanwhile.`);
      const current = EntrySchema.safeParse(row['record']);
      if (!current.success) {
        throw new WalletError('KEYSTORE_DAMAGED', `The ${this.walletWhere(entry)} is not a wallet entry.`, RESTORE);
      }
      const { next, result } = await change(current.data, client);
      await client.query(
        'UPDATE wallet_keystore_wallets SET record = $3::jsonb, updated_at = now() WHERE id = $1 AND network = $2',
        [entry.id, entry.network, JSON.stringify(next)],
      );
      return { entry: next, result };
    };
    // Joined, its failures are the update's: a deadlock or a serialization failure tries the
    // whole update again, and a lost store is BUSY, nothing signed.
    const joined = openLedgerUpdate();
    return joined ? task(joined) : inTransaction(this.pools, task);
  }

  private async walletsOn(client: PoolClient): Promise<KeystoreListing> {
    const rows = await client.query('SELECT id, network, record FROM wallet_keystore_wallets ORDER BY alias, id');
    return this.parseWallets(rows.rows as Record<string, unknown>[]);
  }

  private async keysOn(client: PoolClient): Promise<{ keys: ImportedKeyEntry[]; unreadable: string[] }> {
    const rows = await client.query('SELECT address, record FROM wallet_keystore_keys ORDER BY address');
    return this.parseKeys(rows.rows as Record<string, unknown>[]);
  }

  /** Rows checked as the files are (zod): one whose record is not a wallet entry of its row is unreadable. */
  private parseWallets(rows: readonly Record<string, unknown>[]): KeystoreListing {
    const entries: WalletEntry[] = [];
    const unreadable: string[] = [];
    for (const row of rows) {
      const parsed = EntrySchema.safeParse(row['record']);
      const where = { id: String(row['id']), network: String(row['network']) };
      if (parsed.success && parsed.data.id === where.id && parsed.data.network === where.network) {
        entries.push(parsed.data);
      } else {
        unreadable.push(this.walletWhere(where));
      }
    }
    entries.sort((a, b) => a.alias.localeCompare(b.alias));
    return { entries, unreadable };
  }

  private parseKeys(rows: readonly Record<string, unknown>[]): { keys: ImportedKeyEntry[]; unreadable: string[] } {
    const keys: ImportedKeyEntry[] = [];
    const unreadable: string[] = [];
    for (const row of rows) {
      const key = parseImportedKey(row['record']);
      const address = String(row['address']);
      if (key && key.address.toLowerCase() === address) keys.push(key);
      else unreadable.push(this.keyWhere({ address }));
    }
    return { keys, unreadable };
  }

  private walletWhere(entry: { id: string; network: string }): string {
    return `keystore row wallet_keystore_wallets (${entry.id}, ${entry.network}) of the state store ${this.pools.shown}`;
  }

  private keyWhere(key: Pick<ImportedKeyEntry, 'address'>): string {
    return `keystore row wallet_keystore_keys (${key.address.toLowerCase()}) of the state store ${this.pools.shown}`;
  }
}

/** Whether `dir` holds a wallet's or an imported key's file. */
function hasKeystoreFiles(dir: string): boolean {
  try {
    return readdirSync(dir).some((name) => WALLET_FILE.test(name) || IMPORTED_KEY_FILE.test(name));
  } catch {
    return false;
  }
}

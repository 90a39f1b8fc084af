import { closeSync, existsSync, fsyncSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { CORE_NETWORKS, type CoreNetwork } from '../config/networks.js';
import { asWalletError, hasSystemCode, WalletError } from '../errors.js';
import { open, seal, type KdfParams, type SealedSecret } from './cipher.js';
import { ensurePrivateDir, readPrivateText, syncDir, writeAll, writeFileAtomic } from '../../shared/private-files.js';
import { ALIAS_PATTERN, KEYSTORE_DIR_NAME, RESTORE, Sealed, shownName, walletFileName } from './keystore-format.js';
import {
  IMPORTED_KEY_FILE,
  importedKeyFileName,
  openImportedKey,
  parseImportedKey,
  sealImportedKey,
  type ImportedKeyEntry,
} from './imported-keys.js';
import { withLock, withNamedLock } from './lock.js';

const FORMAT = 'wallet-keystore';
const VERSION = 1;

const FINGERPRINT_PATTERN = /^[0-9a-f]{8}$/;

/**
 * The most addresses one chain of an account hands out. Far beyond any real wallet (discovery
 * stops 20 past the last used one), it keeps a damaged or altered `next_receive` (2^31, say) from
 * making every call derive addresses for minutes: such a file is refused with a clear error.
 */
const MAX_ISSUED_ADDRESSES = 100_000;
const WALLET_FILE = /^[0-9a-f]{8}-[a-z]+\.json$/;

const EvmAccountRecord = z.strictObject({
  index: z
    .int()
    .min(0)
    .max(MAX_ISSUED_ADDRESSES - 1),
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  alias: z.string().regex(ALIAS_PATTERN).nullable(),
});

const EntrySchema = z.strictObject({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  id: z.string().regex(FINGERPRINT_PATTERN),
  alias: z.string().regex(ALIAS_PATTERN),
  network: z.enum(CORE_NETWORKS),
  created_at: z.iso.datetime(),
  account: z.strictObject({
    index: z.int().min(0),
    path: z.string(),
    xpub: z.string(),
    next_receive: z.int().min(0).max(MAX_ISSUED_ADDRESSES),
    next_change: z.int().min(0).max(MAX_ISSUED_ADDRESSES),
  }),
  /** EVM accounts derived from this seed: the xpub of m/44'/60'/0'/0 and each address handed out. */
  evm: z
    .strictObject({
      xpub: z.string(),
      accounts: z.array(EvmAccountRecord),
    })
    .optional(),
  crypto: Sealed,
});

/** An EVM account as the keystore records it; `alias` names it in place of its address. */
export type EvmAccountRecord = z.infer<typeof EvmAccountRecord>;

/** One wallet as stored: public data in clear, the mnemonic sealed. */
export type WalletEntry = z.infer<typeof EntrySchema>;

/** What unlocking gives: the BIP39 mnemonic and its optional passphrase. */
export type WalletSecret = { mnemonic: string; mnemonicPassphrase: string };

export type NewWallet = {
  alias: string;
  network: CoreNetwork;
  id: string;
  account: { index: number; path: string; xpub: string };
  secret: WalletSecret;
  passphrase: string;
};

const Plaintext = z.strictObject({ mnemonic: z.string(), mnemonic_passphrase: z.string() });

/** The fields a sealed secret is bound to: change one and the secret no longer opens. */
function associatedData(entry: Pick<WalletEntry, 'id' | 'network' | 'account'>, kdf: KdfParams): string {
  return JSON.stringify([FORMAT, VERSION, entry.id, entry.network, entry.account.path, entry.account.xpub, kdf]);
}

export type KeystoreListing = { entries: WalletEntry[]; unreadable: string[] };

/**
 * The encrypted keystore: one owner-only JSON file per wallet in `<dataDir>/keystore/` (0700).
 * Every change takes the writer lock and re-reads the file it changes, so concurrent processes
 * never lose an update or hand out an address index twice.
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
  async list(): Promise<KeystoreListing> {
    const { items: entries, unreadable } = await this.readAll(WALLET_FILE, (path) => this.readFile(path));
    entries.sort((a, b) => a.alias.localeCompare(b.alias));
    return { entries, unreadable };
  }

  /** Every imported EVM key, sorted by address; unreadable files are named, not fatal. */
  async listImportedKeys(): Promise<{ keys: ImportedKeyEntry[]; unreadable: string[] }> {
    const { items: keys, unreadable } = await this.readAll(IMPORTED_KEY_FILE, async (path) => {
      const key = parseImportedKey(JSON.parse(readKeystoreText(path)));
      if (!key) throw new WalletError('KEYSTORE_DAMAGED', `The keystore file ${path} is not an imported key.`, RESTORE);
      return key;
    });
    return { keys, unreadable };
  }

  private async readAll<T>(
    pattern: RegExp,
    read: (path: string) => Promise<T>,
  ): Promise<{ items: T[]; unreadable: string[] }> {
    await this.settle();
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (error) {
      if (hasSystemCode(error, 'ENOENT')) return { items: [], unreadable: [] };
      throw error;
    }
    const items: T[] = [];
    const unreadable: string[] = [];
    for (const name of names.filter((candidate) => pattern.test(candidate)).sort()) {
      const item = await read(join(this.dir, name)).catch(() => undefined);
      if (item) items.push(item);
      else unreadable.push(join(this.dir, name));
    }
    return { items, unreadable };
  }

  /**
   * The wallet named by alias or fingerprint, or `WALLET_NOT_FOUND` listing the known aliases. A
   * fingerprint names its files directly and an alias seen before names its file, so a call reads
   * one file, not every wallet's; only an alias not seen yet (or a miss) lists the keystore.
   */
  async resolve(walletId: string): Promise<WalletEntry> {
    await this.settle();
    const id = walletId.trim();
    const direct = await this.resolveDirectly(id);
    if (direct) return direct;
    const { entries, unreadable } = await this.list();
    for (const entry of entries) this.aliasPaths.set(entry.alias, this.pathOf(entry));
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
    await this.refuseDamaged(unreadable, id);
    const known = entries.map((entry) => entry.alias);
    const damaged = unreadable.length > 0 ? ` Unreadable keystore files: ${unreadable.join(', ')}.` : '';
    const advice =
      known.length > 0
        ? `Known wallets: ${known.join(', ')}.`
        : 'Create one with core_wallet_create or core_wallet_import.';
    throw new WalletError('WALLET_NOT_FOUND', `No wallet ${shownName(id)} in ${this.dir}.`, {
      hint: `${advice}${damaged}`,
    });
  }

  /**
   * When the wallet asked for is one of the unreadable files (its name starts with the
   * fingerprint, or it still names the alias), its own `KEYSTORE_DAMAGED`: "restore it", not "no such wallet".
   */
  private async refuseDamaged(unreadable: readonly string[], id: string): Promise<void> {
    for (const path of unreadable) {
      const named = basename(path).startsWith(`${id.toLowerCase()}-`) || namesAlias(path, id);
      if (!named) continue;
      const error = await this.readFile(path).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      if (error instanceof WalletError && error.code === 'KEYSTORE_DAMAGED') throw error;
    }
  }

  /** The wallet a fingerprint or a remembered alias names, from its own file; undefined when unsure. */
  private async resolveDirectly(id: string): Promise<WalletEntry | undefined> {
    const read = (path: string): Promise<WalletEntry | undefined> =>
      this.readFile(path).catch((error: unknown) => {
        if (hasSystemCode(error, 'ENOENT')) return undefined;
        throw error;
      });
    if (FINGERPRINT_PATTERN.test(id.toLowerCase())) {
      const fingerprint = id.toLowerCase();
      const found: WalletEntry[] = [];
      for (const network of CORE_NETWORKS) {
        const entry = await read(this.pathOf({ id: fingerprint, network }));
        if (entry) found.push(entry);
      }
      // Several networks' wallets of one seed: the listing's error names them.
      return found.length === 1 ? found[0] : undefined;
    }
    const path = this.aliasPaths.get(id);
    if (path === undefined) return undefined;
    const entry = await read(path);
    if (entry?.alias === id) return entry;
    this.aliasPaths.delete(id);
    return undefined;
  }

  /** Seals and stores a new wallet; refuses a taken alias or the same seed twice on one network. */
  async create(wallet: NewWallet): Promise<WalletEntry> {
    checkAlias(wallet.alias);
    ensurePrivateDir(this.dir);
    const base = { id: wallet.id, network: wallet.network, account: wallet.account };
    const plaintext = JSON.stringify({
      mnemonic: wallet.secret.mnemonic,
      mnemonic_passphrase: wallet.secret.mnemonicPassphrase,
    });
    const crypto: SealedSecret = await seal(plaintext, wallet.passphrase, (kdf) =>
      associatedData({ ...base, account: { ...wallet.account, next_receive: 0, next_change: 0 } }, kdf),
    );
    const entry: WalletEntry = {
      format: FORMAT,
      version: VERSION,
      id: wallet.id,
      alias: wallet.alias,
      network: wallet.network,
      created_at: new Date().toISOString(),
      account: { ...wallet.account, next_receive: 0, next_change: 0 },
      crypto,
    };
    return this.locked(async () => {
      const { entries } = await this.list();
      const taken = entries.find((other) => other.alias === wallet.alias);
      if (taken) {
        throw new WalletError(
          'INVALID_PARAM',
          `alias '${wallet.alias}' is taken (wallet ${taken.id} on ${taken.network}).`,
          {
            hint: 'Choose another alias.',
          },
        );
      }
      const same = entries.find((other) => other.id === wallet.id && other.network === wallet.network);
      if (same) {
        throw new WalletError(
          'INVALID_PARAM',
          `This seed is already in the keystore as '${same.alias}' on ${same.network}.`,
        );
      }
      writeFileAtomic(this.pathOf(entry), serialize(entry));
      return entry;
    });
  }

  /** Decrypts a wallet's secret; `WALLET_LOCKED` when the passphrase is wrong or the file was altered. */
  async unlock(entry: WalletEntry, passphrase: string): Promise<WalletSecret> {
    const text = await this.opened(this.pathOf(entry), () =>
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

  /**
   * Hands out the next `count` indexes of a chain and records them before returning, under the
   * lock, re-reading the file first: no index is ever given twice, even across a crash.
   */
  async reserve(
    entry: WalletEntry,
    chain: 'receive' | 'change',
    count = 1,
  ): Promise<{ entry: WalletEntry; first: number }> {
    return this.update(entry, (current) => {
      const key = chain === 'receive' ? 'next_receive' : 'next_change';
      const first = current.account[key];
      if (first + count > MAX_ISSUED_ADDRESSES) {
        throw new WalletError(
          'INVALID_PARAM',
          `Wallet '${current.alias}' has handed out ${first} ${chain} addresses, the most one account issues (${MAX_ISSUED_ADDRESSES}).`,
          { hint: 'Reuse an address the wallet already issued (core_addresses_list), or create another wallet.' },
        );
      }
      return { next: { ...current, account: { ...current.account, [key]: first + count } }, result: first };
    }).then(({ entry: next, result }) => ({ entry: next, first: result }));
  }

  /** Raises a chain's next index to at least `next` (discovery); never lowers it. */
  async advance(entry: WalletEntry, next: { receive: number; change: number }): Promise<WalletEntry> {
    const { entry: updated } = await this.update(entry, (current) => ({
      next: {
        ...current,
        account: {
          ...current.account,
          next_receive: Math.max(current.account.next_receive, next.receive),
          next_change: Math.max(current.account.next_change, next.change),
        },
      },
      result: undefined,
    }));
    return updated;
  }

  /**
   * Records the next EVM account of a wallet's seed (one past the highest index yet), storing the
   * chain xpub on first use. Under the lock, re-reading everything: no index or alias twice. An
   * index whose address the keystore already has (the same seed in a wallet of another Dash
   * network, or an imported key) is skipped, not handed out twice.
   */
  async addEvmAccount(
    entry: WalletEntry,
    request: { xpub: string; alias: string | null; addressAt: (xpub: string, index: number) => string },
  ): Promise<{ entry: WalletEntry; account: EvmAccountRecord }> {
    if (request.alias !== null) checkAlias(request.alias);
    const { entry: next, result } = await this.update(entry, async (current) => {
      const evm = current.evm ?? { xpub: request.xpub, accounts: [] };
      const known = await this.knownEvmAccounts();
      checkEvmAliasFree(known, request.alias);
      const addressAt = (at: number): string => {
        try {
          return request.addressAt(evm.xpub, at);
        } catch (error) {
          // The chain xpub read from the file (kept in clear) was edited in: the file is named.
          if (current.evm && error instanceof WalletError && error.code === 'KEYSTORE_DAMAGED') {
            throw new WalletError(
              'KEYSTORE_DAMAGED',
              `The keystore file ${this.pathOf(current)} holds an EVM chain xpub that is not a chain's extended public key.`,
              { ...RESTORE, cause: error },
            );
          }
          throw error;
        }
      };
      let index = evm.accounts.reduce((highest, account) => Math.max(highest, account.index + 1), 0);
      while (index < MAX_ISSUED_ADDRESSES && known.some((other) => sameAddress(other.address, addressAt(index)))) {
        index += 1;
      }
      if (index >= MAX_ISSUED_ADDRESSES) {
        throw new WalletError(
          'INVALID_PARAM',
          `Wallet '${current.alias}' has reached EVM account ${MAX_ISSUED_ADDRESSES}, the most one wallet issues.`,
          { hint: 'Use an account the wallet already has (evm_accounts_list), or create another wallet.' },
        );
      }
      const account = { index, address: addressAt(index), alias: request.alias };
      return { next: { ...current, evm: { ...evm, accounts: [...evm.accounts, account] } }, result: account };
    });
    return { entry: next, account: result };
  }

  /** Stores a sealed imported key; refuses an address or alias the keystore already has. */
  async addImportedKey(key: ImportedKeyEntry): Promise<void> {
    if (key.alias !== null) checkAlias(key.alias);
    ensurePrivateDir(this.dir);
    await this.locked(async () => {
      const known = await this.knownEvmAccounts();
      const same = known.find((other) => sameAddress(other.address, key.address));
      if (same) throw new WalletError('INVALID_PARAM', `${same.address} is already in the keystore as ${same.owner}.`);
      checkEvmAliasFree(known, key.alias);
      const path = this.importedKeyPath(key);
      // A file of that name that could not be read (so is not listed) is never overwritten.
      if (existsSync(path)) {
        throw new WalletError('INVALID_PARAM', `${path} exists but cannot be read; nothing was imported.`, {
          hint: 'Move the damaged file away first.',
        });
      }
      writeFileAtomic(path, serialize(key));
    });
  }

  /** An imported key's private key; `WALLET_LOCKED` when the passphrase is wrong or the file was altered. */
  async unlockImportedKey(key: ImportedKeyEntry, passphrase: string): Promise<Uint8Array> {
    const privateKey = await this.opened(this.importedKeyPath(key), () => openImportedKey(key, passphrase));
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
  async checkPassphrase(passphrase: string): Promise<'ok' | 'wrong' | 'empty'> {
    const { entries } = await this.list();
    const [wallet] = entries;
    if (wallet) {
      const opened = await this.opened(this.pathOf(wallet), () =>
        open(wallet.crypto, passphrase, associatedData(wallet, wallet.crypto.kdfparams)),
      );
      return opened === undefined ? 'wrong' : 'ok';
    }
    const { keys } = await this.listImportedKeys();
    const [key] = keys;
    if (!key) return 'empty';
    const opened = await this.opened(this.importedKeyPath(key), () => openImportedKey(key, passphrase));
    return opened === undefined ? 'wrong' : 'ok';
  }

  /**
   * Re-seals every wallet and imported key (or only the wallet `only`) from `current` to `next`,
   * all or nothing, under the keystore lock: each file is opened first (one that does not open
   * with `current` stops everything), the new files are written beside the old ones and synced,
   * and only then renamed over them; a failure before the renames removes the new files, one
   * during them puts back the files already replaced. The old passphrase keeps working until the
   * change is complete.
   */
  async changePassphrase(
    current: string,
    next: string,
    only?: WalletEntry,
  ): Promise<{ wallets: WalletEntry[]; keys: ImportedKeyEntry[] }> {
    ensurePrivateDir(this.dir);
    return this.locked(async () => {
      return this.resealAll(current, next, only).catch(async (error: unknown) => {
        removeStaleStaging(this.dir);
        throw error;
      });
    });
  }

  /**
   * Finishes a passphrase change that a crash cut short between its renames (its commit record is
   * still there), so the files never stay half under the old passphrase and half under the new.
   * One `stat` when there is none.
   */
  private async settle(): Promise<void> {
    // Every locked section finishes such a change first (`locked`), so inside one there is none.
    if (existsSync(join(this.dir, COMMIT_RECORD))) await this.locked(async () => undefined);
  }

  /** Runs `task` under the keystore lock, after finishing a passphrase change a crash cut short. */
  private async locked<T>(task: () => Promise<T>): Promise<T> {
    return withLock(this.dir, async () => {
      await finishCommit(this.dir);
      return task();
    });
  }

  private async resealAll(
    current: string,
    next: string,
    only: WalletEntry | undefined,
  ): Promise<{ wallets: WalletEntry[]; keys: ImportedKeyEntry[] }> {
    const listed = await this.list();
    const listedKeys = await this.listImportedKeys();
    const unreadable = [...listed.unreadable, ...listedKeys.unreadable];
    if (only === undefined && unreadable.length > 0) {
      throw new WalletError(
        'KEYSTORE_DAMAGED',
        `Cannot re-encrypt the keystore: ${unreadable.join(', ')} cannot be read; nothing was changed.`,
        RESTORE,
      );
    }
    const wallets =
      only === undefined
        ? listed.entries
        : listed.entries.filter((entry) => entry.id === only.id && entry.network === only.network);
    const keys = only === undefined ? listedKeys.keys : [];
    const staged: { path: string; temp: string; text: string; old: string }[] = [];
    const resealedWallets: WalletEntry[] = [];
    const resealedKeys: ImportedKeyEntry[] = [];
    for (const wallet of wallets) {
      const secret = await this.unlock(wallet, current);
      const plaintext = JSON.stringify({ mnemonic: secret.mnemonic, mnemonic_passphrase: secret.mnemonicPassphrase });
      const crypto = await seal(plaintext, next, (kdf) => associatedData(wallet, kdf));
      const resealed = { ...wallet, crypto };
      resealedWallets.push(resealed);
      staged.push(await this.stage(this.pathOf(wallet), serialize(resealed)));
    }
    for (const key of keys) {
      const privateKey = await this.unlockImportedKey(key, current);
      try {
        const sealed = await sealImportedKey({
          address: key.address,
          alias: key.alias,
          privateKey,
          passphrase: next,
        });
        const resealed = { ...sealed, created_at: key.created_at };
        resealedKeys.push(resealed);
        staged.push(await this.stage(this.importedKeyPath(key), serialize(resealed)));
      } finally {
        privateKey.fill(0);
      }
    }
    await commitStaged(staged, this.dir);
    return { wallets: resealedWallets, keys: resealedKeys };
  }

  /** Writes `text` to an owner-only temp file beside `path`, synced; the old contents kept for a rollback. */
  private async stage(path: string, text: string): Promise<{ path: string; temp: string; text: string; old: string }> {
    const temp = join(this.dir, `.${basename(path)}${STAGED_SUFFIX}`);
    const old = readKeystoreText(path);
    // A fresh file, never one found there: a link left at the temp's name is not written through.
    rmSync(temp, { force: true });
    const fd = openSync(temp, 'wx', 0o600);
    try {
      writeAll(fd, Buffer.from(text, 'utf8'));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return { path, temp, text, old };
  }

  /** Every EVM account of the keystore, with who holds it, for uniqueness checks. */
  private async knownEvmAccounts(): Promise<KnownEvmAccount[]> {
    const { entries } = await this.list();
    const { keys } = await this.listImportedKeys();
    return [
      ...entries.flatMap((wallet) =>
        (wallet.evm?.accounts ?? []).map((other) => ({
          address: other.address,
          alias: other.alias,
          owner: `account ${other.index} of wallet '${wallet.alias}'`,
        })),
      ),
      ...keys.map((key) => ({ address: key.address, alias: key.alias, owner: 'an imported key' })),
    ];
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
  async remove(entry: WalletEntry): Promise<void> {
    await this.locked(async () => {
      rmSync(this.pathOf(entry), { force: true });
      syncDir(this.dir);
    });
  }

  private async update<T>(
    entry: WalletEntry,
    change: (current: WalletEntry) => { next: WalletEntry; result: T } | Promise<{ next: WalletEntry; result: T }>,
  ): Promise<{ entry: WalletEntry; result: T }> {
    return this.locked(async () => {
      const path = this.pathOf(entry);
      const current = await this.readFile(path).catch((error: unknown) => {
        if (hasSystemCode(error, 'ENOENT'))
          throw new WalletError('WALLET_NOT_FOUND', `Wallet '${entry.alias}' was deleted meanwhile.`);
        throw error;
      });
      const { next, result } = await change(current);
      writeFileAtomic(path, serialize(next));
      return { entry: next, result };
    });
  }

  /** A sealed secret of the file at `path` opened; the cipher's refusal of it names the file. */
  private async opened<T>(path: string, opening: () => Promise<T>): Promise<T> {
    try {
      return await opening();
    } catch (error) {
      if (!(error instanceof WalletError && error.code === 'KEYSTORE_DAMAGED')) throw error;
      throw new WalletError('KEYSTORE_DAMAGED', `The keystore file ${path}: ${error.message}`, {
        ...RESTORE,
        cause: error,
      });
    }
  }

  private importedKeyPath(key: Pick<ImportedKeyEntry, 'address'>): string {
    return join(this.dir, importedKeyFileName(key.address));
  }

  private pathOf(entry: Pick<WalletEntry, 'id' | 'network'>): string {
    return join(this.dir, walletFileName(entry));
  }

  private async readFile(path: string): Promise<WalletEntry> {
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
}

function checkAlias(alias: string): void {
  if (!ALIAS_PATTERN.test(alias)) {
    throw new WalletError(
      'INVALID_PARAM',
      'alias must be 1-32 characters: a lower-case letter, then letters, digits, - or _.',
    );
  }
  if (FINGERPRINT_PATTERN.test(alias)) {
    throw new WalletError(
      'INVALID_PARAM',
      'alias must not look like a fingerprint (8 hex digits): the two name wallets alike.',
    );
  }
}

type KnownEvmAccount = { address: string; alias: string | null; owner: string };

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function checkEvmAliasFree(known: readonly KnownEvmAccount[], alias: string | null): void {
  const taken = alias === null ? undefined : known.find((other) => other.alias === alias);
  if (taken) {
    throw new WalletError('INVALID_PARAM', `alias '${alias ?? ''}' is taken by ${taken.address}.`, {
      hint: 'Choose another alias.',
    });
  }
}

/** The suffix of a file a passphrase change staged: `.<name>.json.passphrase-change`. */
const STAGED_SUFFIX = '.passphrase-change';

/**
 * The commit record of a passphrase change: the names of the files whose staged versions are all
 * written and synced. Present only between the first and the last rename (or after a crash there).
 */
const COMMIT_RECORD = '.passphrase-change.commit';
const CommitRecord = z.array(z.string().refine((name) => WALLET_FILE.test(name) || IMPORTED_KEY_FILE.test(name)));

/**
 * Renames every staged file over its original, then syncs the folder. The commit record is written
 * first, so a crash between two renames is finished by the next process (`finishCommit`) rather
 * than leaving files under two passphrases. When a rename fails, the record goes and the files
 * already replaced get their old contents back (atomically), so the old passphrase opens every file
 * again, and the error is passed on.
 */
async function commitStaged(
  staged: readonly { path: string; temp: string; old: string }[],
  dir: string,
): Promise<void> {
  const record = join(dir, COMMIT_RECORD);
  writeFileAtomic(record, JSON.stringify(staged.map((file) => basename(file.path))));
  const done: { path: string; old: string }[] = [];
  try {
    for (const file of staged) {
      renameSync(file.temp, file.path);
      done.push(file);
    }
  } catch (error) {
    rmSync(record, { force: true });
    syncDir(dir);
    for (const file of done.reverse()) writeFileAtomic(file.path, file.old);
    throw error;
  }
  syncDir(dir);
  rmSync(record, { force: true });
  syncDir(dir);
}

/**
 * Under the keystore lock: renames what a cut-short commit left staged over its files, then drops
 * the record. A rename already done left no staged file; a staged file no record names (a crash
 * before the commit) is left to `removeStaleStaging` and the next change.
 */
async function finishCommit(dir: string): Promise<void> {
  const record = join(dir, COMMIT_RECORD);
  let text: string;
  try {
    text = readKeystoreText(record);
  } catch (error) {
    if (hasSystemCode(error, 'ENOENT')) return;
    throw error;
  }
  let names: string[];
  try {
    names = CommitRecord.parse(JSON.parse(text));
  } catch {
    throw new WalletError(
      'KEYSTORE_DAMAGED',
      `The record of an interrupted passphrase change, ${record}, cannot be read.`,
      RESTORE,
    );
  }
  for (const name of names) {
    try {
      renameSync(join(dir, `.${name}${STAGED_SUFFIX}`), join(dir, name));
    } catch (error) {
      if (!hasSystemCode(error, 'ENOENT')) throw error;
    }
  }
  syncDir(dir);
  rmSync(record, { force: true });
  removeStaleStaging(dir);
  syncDir(dir);
}

/** Removes what a failed passphrase change left staged (never an original file). */
function removeStaleStaging(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names.filter((candidate) => candidate.endsWith(STAGED_SUFFIX))) {
    rmSync(join(dir, name), { force: true, recursive: true });
  }
}

/** Whether the keystore file at `path` names `alias` (false when it cannot be read or parsed). */
function namesAlias(path: string, alias: string): boolean {
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
function readKeystoreText(path: string): string {
  try {
    return readPrivateText(path);
  } catch (error) {
    throw asWalletError(error);
  }
}

function serialize(entry: WalletEntry | ImportedKeyEntry): string {
  return `${JSON.stringify(entry, null, 2)}\n`;
}

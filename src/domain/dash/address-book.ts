import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, readPrivateText, writeFileAtomic } from '../../shared/private-files.js';
import type { WalletEntry } from '../keystore/wallet-record.js';
import type { AddressChain } from './paths.js';
import type { AccountWatcher } from './watcher.js';

/** Watch-only derivation loads when an address is derived, not with every call's services. */
const watchOnly = () => import('./watcher.js');

const FORMAT = 'wallet-address-cache';
const VERSION = 1;

/** The addresses of an account's two chains, by index. */
export type DerivedAddresses = { receive: string[]; change: string[] };

/**
 * The addresses an account's xpub derives, kept so that a call does not derive every issued
 * address again (half a millisecond each: 2.6 s at 5,000). They are public data, like the xpub,
 * cached in this process and in `<data dir>/cache/addresses/<fingerprint>-<network>.json` (0600),
 * which names the xpub it was derived from. A damaged or altered file only misleads a listing:
 * an address is derived again from the xpub before it is signed for or counted as the wallet's own
 * ({@link AddressBook.confirm}), and a receive address handed out is always derived afresh.
 */
export class AddressBook {
  private readonly dir: string;
  private readonly known = new Map<string, DerivedAddresses>();

  constructor(private readonly dataDir: string) {
    this.dir = join(dataDir, 'cache', 'addresses');
  }

  /** The first `count` addresses of each chain the entry has issued, deriving only what is new. */
  async addresses(entry: WalletEntry): Promise<DerivedAddresses> {
    const key = keyOf(entry);
    const known = this.known.get(key) ?? (await this.read(entry)) ?? { receive: [], change: [] };
    let watcher: AccountWatcher | undefined;
    let grown = false;
    for (const chain of ['receive', 'change'] as const) {
      const count = chain === 'receive' ? entry.account.next_receive : entry.account.next_change;
      const list = known[chain];
      if (list.length >= count) continue;
      watcher ??= (await watchOnly()).watcherOf(entry, this.dataDir);
      for (let index = list.length; index < count; index++) list.push(watcher.address(chain, index));
      grown = true;
    }
    this.known.set(key, known);
    // A cache that cannot be written costs time on the next run, nothing else.
    if (grown) await this.write(entry, known).catch(() => undefined);
    return known;
  }

  /**
   * Whether `address` really is the entry's address at `chain`/`index`, derived again from the
   * xpub. When it is not, the cache was altered or damaged: it is dropped (file and memory), so the
   * next call derives everything afresh.
   */
  async confirm(entry: WalletEntry, chain: AddressChain, index: number, address: string): Promise<boolean> {
    const { watcherOf } = await watchOnly();
    if (watcherOf(entry, this.dataDir).address(chain, index) === address) return true;
    this.known.delete(keyOf(entry));
    try {
      rmSync(this.pathOf(entry), { force: true });
    } catch {
      // A cache: the next write replaces it.
    }
    return false;
  }

  private pathOf(entry: WalletEntry): string {
    return join(this.dir, `${entry.id}-${entry.network}.json`);
  }

  private async read(entry: WalletEntry): Promise<DerivedAddresses | undefined> {
    try {
      const stored = JSON.parse(readPrivateText(this.pathOf(entry))) as Record<string, unknown>;
      const { receive, change } = stored;
      if (
        stored['format'] !== FORMAT ||
        stored['version'] !== VERSION ||
        stored['network'] !== entry.network ||
        stored['xpub'] !== entry.account.xpub ||
        !isTextArray(receive) ||
        !isTextArray(change)
      ) {
        return undefined;
      }
      return { receive, change };
    } catch {
      return undefined;
    }
  }

  private async write(entry: WalletEntry, known: DerivedAddresses): Promise<void> {
    ensurePrivateDir(this.dir);
    const stored = { format: FORMAT, version: VERSION, network: entry.network, xpub: entry.account.xpub, ...known };
    writeFileAtomic(this.pathOf(entry), `${JSON.stringify(stored)}\n`);
  }
}

function keyOf(entry: WalletEntry): string {
  return `${entry.network}:${entry.account.xpub}`;
}

function isTextArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

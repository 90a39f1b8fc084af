import { join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir, writeFileAtomic } from '../../shared/private-files.js';
import { CHAINS, type Chain } from '../config/networks.js';
import { WalletError } from '../errors.js';
import { withNamedLock } from '../keystore/lock.js';
import { readStateFile } from './state-file.js';

const LEDGER_DIR_NAME = 'ledger';
/** How far back a 24-hour cap looks. */
const LEDGER_WINDOW_MS = 24 * 60 * 60 * 1000;

const FORMAT = 'wallet-spend-ledger';
const VERSION = 1;
const DIGITS = /^(0|[1-9][0-9]*)$/;

const LedgerFileSchema = z.strictObject({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  chain: z.enum(CHAINS),
  network: z.string(),
  entries: z.array(
    z.strictObject({
      key: z.string().min(1).max(200),
      txid: z.string().max(100).nullable(),
      amount: z.string().regex(DIGITS).max(80),
      time: z.iso.datetime(),
      by: z.enum(['owner', 'agent']).optional(),
    }),
  ),
});

/** One spend the cap counts: signed (and perhaps sent) at `time`, in the network's base units. */
export type LedgerEntry = {
  /** The transaction without its signatures (see `docs/POLICY.md`): the same before and after signing. */
  key: string;
  /** The signed transaction's id or hash, when known; for people reading the file. */
  txid: string | null;
  amount: bigint;
  /** Milliseconds since the epoch. */
  time: number;
  /** Who stood behind it (see `Authority`); entries written before it was recorded were the owner's. */
  by?: 'owner' | 'agent' | undefined;
};

/**
 * The rolling record of one chain's spends (or one token's) for its 24-hour caps:
 * `<dataDir>/ledger/<chain>-<scope>.json` (`core-mainnet`, `evm-chain-1`, `evm-chain-1-0xa0b8…`)
 * (0600, replaced atomically), changed only under a cross-process lock of its own. Entries older than
 * 24 hours are dropped at the next change. A file that cannot be read is never taken as empty: that
 * would lift the cap.
 */
export class SpendLedger {
  readonly path: string;
  private readonly dir: string;
  private readonly dataDir: string;

  constructor(
    dataDir: string,
    readonly chain: Chain,
    readonly network: string,
  ) {
    this.dir = join(dataDir, LEDGER_DIR_NAME);
    this.path = join(this.dir, `${chain}-${network}.json`);
    this.dataDir = dataDir;
  }

  /** The entries of the last 24 hours, read without the lock (the file is replaced atomically). */
  async recent(now = Date.now()): Promise<LedgerEntry[]> {
    return inWindow(await this.read(), now);
  }

  /**
   * Runs `change` under the ledger's lock with the entries of the last 24 hours, and writes back
   * the list it returns. Nothing is written when `change` throws.
   */
  async update<T>(
    change: (recent: LedgerEntry[], now: number) => Promise<{ entries: LedgerEntry[]; result: T }>,
  ): Promise<T> {
    ensurePrivateDir(this.dir);
    return withNamedLock(this.dataDir, `ledger-${this.chain}-${this.network}`, async () => {
      const all = await this.read();
      const now = Date.now();
      const recent = inWindow(all, now);
      const { entries, result } = await change(recent, now);
      if (entries !== recent || recent.length !== all.length) writeFileAtomic(this.path, this.serialize(entries));
      return result;
    });
  }

  /** Drops the entry recorded under `key` (a spend the node definitely refused). */
  async remove(key: string): Promise<void> {
    await this.update(async (recent) => {
      const kept = recent.filter((entry) => entry.key !== key);
      return { entries: kept.length === recent.length ? recent : kept, result: undefined };
    });
  }

  private async read(): Promise<LedgerEntry[]> {
    const what = `a ${FORMAT} file of version ${VERSION}`;
    const file = await readStateFile(this.path, LedgerFileSchema, what, (reason, cause) => this.damaged(reason, cause));
    if (!file) return [];
    if (file.chain !== this.chain || file.network !== this.network) {
      throw this.damaged(`it is the ledger of ${file.chain}.${file.network}`);
    }
    return file.entries.map((entry) => ({
      key: entry.key,
      txid: entry.txid,
      amount: BigInt(entry.amount),
      time: Date.parse(entry.time),
      by: entry.by ?? 'owner',
    }));
  }

  private serialize(entries: readonly LedgerEntry[]): string {
    const file: z.input<typeof LedgerFileSchema> = {
      format: FORMAT,
      version: VERSION,
      chain: this.chain,
      network: this.network,
      entries: entries.map((entry) => ({
        key: entry.key,
        txid: entry.txid,
        amount: entry.amount.toString(),
        time: new Date(entry.time).toISOString(),
        ...(entry.by === undefined ? {} : { by: entry.by }),
      })),
    };
    return `${JSON.stringify(file, null, 2)}\n`;
  }

  private damaged(reason: string, cause?: unknown): WalletError {
    return new WalletError(
      'POLICY_VIOLATION',
      `The spend ledger ${this.path} is damaged (${reason}): the 24-hour cap of ${this.chain}.${this.network} cannot be enforced, so nothing was signed or sent.`,
      {
        hint: 'Restore the file or repair it by hand; deleting it forgets the spends of the last 24 hours.',
        cause,
      },
    );
  }
}

/** The sum of the entries' amounts. */
export function totalOf(entries: readonly LedgerEntry[]): bigint {
  return entries.reduce((sum, entry) => sum + entry.amount, 0n);
}

/** Entries of the last 24 hours; one dated in the future (a clock set back) still counts. */
function inWindow(entries: readonly LedgerEntry[], now: number): LedgerEntry[] {
  return entries.filter((entry) => entry.time > now - LEDGER_WINDOW_MS);
}

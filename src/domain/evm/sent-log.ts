import { join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir, writeFileAtomic } from '../../shared/private-files.js';
import { WalletError } from '../errors.js';
import { withNamedLock } from '../keystore/lock.js';
import { readStateFile } from '../policy/state-file.js';

const FORMAT = 'wallet-evm-sent';
const VERSION = 1;
/** The most records a chain's file keeps: the oldest go first, so the file stays small. */
export const SENT_LOG_MAX = 1000;
const SENT_LOG_DIR_NAME = 'history';

const DIGITS = /^(0|[1-9][0-9]*)$/;
const Address = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

export const SentRecordSchema = z.object({
  hash: z.string().regex(/^0x[0-9a-f]{64}$/),
  from: Address,
  to: Address.nullable(),
  value: z.string().regex(DIGITS),
  nonce: z.int().nonnegative(),
  /** ISO 8601, when it was broadcast. */
  sent_at: z.iso.datetime(),
  /** An ERC-20 `transfer` in the calldata: the token, its recipient and amount (base units). */
  token: z.object({ address: Address, to: Address, amount: z.string().regex(DIGITS) }).nullable(),
});

const SentLogSchema = z.object({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  chain_id: z.int(),
  records: z.array(SentRecordSchema),
});

/** One transaction this wallet broadcast: public facts only (no key, no signature, no raw bytes). */
export type SentRecord = z.infer<typeof SentRecordSchema>;

/**
 * What this wallet broadcast on one EVM chain, newest last: `<data dir>/history/evm-<chain id>.json`
 * (0600), replaced atomically under a lock, at most {@link SENT_LOG_MAX} records. Plain JSON-RPC
 * keeps no history by address, so this is the wallet's own memory of what it sent. The files
 * backend's record (state/files/store.ts); replicas share the store's (state/pg/sent-log.ts).
 */
export class SentLog {
  private readonly dir: string;
  readonly path: string;

  constructor(
    private readonly dataDir: string,
    readonly chainId: number,
  ) {
    this.dir = join(dataDir, SENT_LOG_DIR_NAME);
    this.path = join(this.dir, `evm-${chainId}.json`);
  }

  /** Every record, oldest first; none when the file does not exist yet. */
  async records(): Promise<SentRecord[]> {
    const file = await readStateFile(
      this.path,
      SentLogSchema,
      `a ${FORMAT} file of version ${VERSION}`,
      (reason, cause) => this.damaged(reason, cause),
    );
    if (!file) return [];
    if (file.chain_id !== this.chainId) throw this.damaged(`it is the record of chain ${file.chain_id}`);
    return file.records;
  }

  /** Appends `record` (once per hash: a repeated broadcast is not a second transaction). */
  async append(record: SentRecord): Promise<void> {
    ensurePrivateDir(this.dir);
    await withNamedLock(this.dataDir, `history-evm-${this.chainId}`, async () => {
      const records = await this.records();
      if (records.some((known) => known.hash === record.hash)) return;
      const kept = [...records, record].slice(-SENT_LOG_MAX);
      const file: z.input<typeof SentLogSchema> = {
        format: FORMAT,
        version: VERSION,
        chain_id: this.chainId,
        records: kept,
      };
      writeFileAtomic(this.path, `${JSON.stringify(file, null, 1)}\n`);
    });
  }

  private damaged(reason: string, cause?: unknown): WalletError {
    return new WalletError('KEYSTORE_DAMAGED', `The record of sent transactions ${this.path} is damaged (${reason}).`, {
      hint: 'Restore it from a backup, or delete it to start a new record (the transactions themselves stay on the chain).',
      cause,
    });
  }
}

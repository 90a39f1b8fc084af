import { SENT_LOG_MAX, SentRecordSchema, type SentRecord } from '../../evm/sent-log.js';
import { WalletError } from '../../errors.js';
import type { SentRecords } from '../store.js';
import { query, type PgPools } from './client.js';

/**
 * What the wallet broadcast on one EVM chain, by any replica: rows of `wallet_evm_sent`, one per
 * hash (a repeated broadcast is not a second transaction), listed newest last as the file's
 * records are. The rows hold public facts only, as the file does: no key, no signature, no raw bytes.
 */
export class PgSentLog implements SentRecords {
  readonly path: string;

  constructor(
    private readonly pools: PgPools,
    private readonly chainId: number,
  ) {
    this.path = `the state store ${pools.shown} (wallet_evm_sent, chain ${chainId})`;
  }

  async records(): Promise<SentRecord[]> {
    const rows = await query(
      this.pools,
      'SELECT record FROM wallet_evm_sent WHERE chain_id = $1 ORDER BY id DESC LIMIT $2',
      [this.chainId, SENT_LOG_MAX],
    );
    return rows.reverse().map((row) => {
      const parsed = SentRecordSchema.safeParse(row['record']);
      if (!parsed.success) {
        throw new WalletError('BACKEND_INVALID', `A record of ${this.path} is not a sent transaction.`, {
          hint: 'Something other than the wallet wrote wallet_evm_sent: check who has write access to it.',
        });
      }
      return parsed.data;
    });
  }

  async append(record: SentRecord): Promise<void> {
    await query(
      this.pools,
      `INSERT INTO wallet_evm_sent (chain_id, hash, from_address, record) VALUES ($1, $2, $3, $4::jsonb)
       ON CONFLICT (chain_id, hash) DO NOTHING`,
      [this.chainId, record.hash, record.from.toLowerCase(), JSON.stringify(record)],
    );
  }
}

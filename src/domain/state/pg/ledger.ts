import { AsyncLocalStorage } from 'node:async_hooks';
import type { PoolClient } from 'pg';
import type { Chain } from '../../config/networks.js';
import type { LedgerEntry } from '../../policy/spend-ledger.js';
import type { CapLedger } from '../store.js';
import { fromStore, inTransaction, query, storeError, type PgPools } from './client.js';

const LEDGER_WINDOW_MS = 24 * 60 * 60 * 1000;
/** What an update that fails once its change ran has done: the change signs (spending-policy.ts). */
const SIGNED_NOT_SENT = 'the transaction was signed, but neither counted nor broadcast';

/**
 * The transaction of the ledger update in progress: a spend that counts in several ledgers (the
 * chain's and a token's) takes their locks one inside the other (spending-policy.ts), here all in
 * one transaction, so the spend is recorded in all of them or in none.
 */
const open = new AsyncLocalStorage<PoolClient>();

/**
 * The connection of the ledger update in progress in this call, its transaction open, if any: a
 * change made while it signs (a Dash payment's change index) joins it rather than wait for another
 * connection of the pool, which the payments waiting for this ledger's lock may all hold.
 */
export function openLedgerUpdate(): PoolClient | undefined {
  return open.getStore();
}

/**
 * One 24-hour count in the store: its entries are rows of `wallet_ledger_entries`, and an update
 * holds the ledger's row of `wallet_ledgers` locked (`SELECT … FOR UPDATE`) from reading the
 * entries to recording the new one, so two replicas never both fit into the same room. The store's
 * clock dates entries, one clock for all replicas. Entries that left the window stay as history (a key recorded again
 * takes its row over).
 */
export class PgSpendLedger implements CapLedger {
  readonly path: string;
  private readonly name: string;

  constructor(
    private readonly pools: PgPools,
    private readonly chain: Chain,
    network: string,
  ) {
    this.name = `${chain}-${network}`;
    this.path = `the state store ${pools.shown} (wallet_ledger_entries, ledger ${this.name})`;
  }

  async recent(): Promise<LedgerEntry[]> {
    const rows = await query(
      this.pools,
      `SELECT key, txid, amount::text AS amount, at_ms::text AS at_ms, by_whom FROM wallet_ledger_entries
       WHERE ledger = $1 AND at_ms > (extract(epoch FROM clock_timestamp()) * 1000)::bigint - $2 ORDER BY at_ms, key`,
      [this.name, LEDGER_WINDOW_MS],
    );
    return rows.map(entryOf);
  }

  update<T>(
    change: (recent: LedgerEntry[], now: number) => Promise<{ entries: LedgerEntry[]; result: T }>,
  ): Promise<T> {
    const outer = open.getStore();
    if (outer) return this.updateOn(outer, change);
    return inTransaction(this.pools, (client) => open.run(client, () => this.updateOn(client, change)), {
      afterTask: SIGNED_NOT_SENT,
    });
  }

  async remove(key: string): Promise<void> {
    await query(this.pools, 'DELETE FROM wallet_ledger_entries WHERE ledger = $1 AND key = $2', [this.name, key]);
  }

  private async updateOn<T>(
    client: PoolClient,
    change: (recent: LedgerEntry[], now: number) => Promise<{ entries: LedgerEntry[]; result: T }>,
  ): Promise<T> {
    await client.query('INSERT INTO wallet_ledgers (name, chain) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      this.name,
      this.chain,
    ]);
    await client.query('SELECT name FROM wallet_ledgers WHERE name = $1 FOR UPDATE', [this.name]);
    const clock = await client.query<{ now: string }>(
      'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint::text AS now',
    );
    const now = Number(clock.rows[0]?.now);
    const rows = await client.query(
      `SELECT key, txid, amount::text AS amount, at_ms::text AS at_ms, by_whom FROM wallet_ledger_entries
       WHERE ledger = $1 AND at_ms > $2 ORDER BY at_ms, key`,
      [this.name, now - LEDGER_WINDOW_MS],
    );
    const recent = (rows.rows as Record<string, unknown>[]).map(entryOf);
    const { entries, result } = await change(recent, now);
    if (entries === recent) return result;
    try {
      const kept = new Set(entries.map((entry) => entry.key));
      const known = new Set(recent.map((entry) => entry.key));
      for (const gone of recent.filter((entry) => !kept.has(entry.key))) {
        await client.query('DELETE FROM wallet_ledger_entries WHERE ledger = $1 AND key = $2', [this.name, gone.key]);
      }
      // A key whose old row left the window (kept as history) is counted again from now: the row
      // takes the new entry's values, else the spend would pass uncounted.
      for (const added of entries.filter((entry) => !known.has(entry.key))) {
        await client.query(
          `INSERT INTO wallet_ledger_entries (ledger, key, txid, amount, at_ms, by_whom)
           VALUES ($1, $2, $3, $4, $5, $6)
           ON CONFLICT (ledger, key) DO UPDATE SET txid = excluded.txid, amount = excluded.amount,
             at_ms = excluded.at_ms, by_whom = excluded.by_whom`,
          [this.name, added.key, added.txid, added.amount.toString(), added.time, added.by ?? 'owner'],
        );
      }
    } catch (error) {
      throw fromStore(error) ? storeError(error, this.pools.shown, SIGNED_NOT_SENT) : error;
    }
    return result;
  }
}

function entryOf(row: Record<string, unknown>): LedgerEntry {
  return {
    key: String(row['key']),
    txid: row['txid'] === null ? null : String(row['txid']),
    amount: BigInt(String(row['amount'])),
    time: Number(row['at_ms']),
    by: row['by_whom'] === 'agent' ? 'agent' : 'owner',
  };
}

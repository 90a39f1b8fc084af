import type { PoolClient } from 'pg';
import { WalletError } from '../../errors.js';
import type { ChainVerdict, MarkedReservation, NonceSlot, Reconciled } from '../store.js';
import { inTransaction, query, storeError, type PgPools } from './client.js';

/** A nonce broadcast less than this ago may not show in another node's pending count yet: it is skipped. */
const FRESH_SECONDS = 120;
/** A reservation marked broadcast whose transaction the node still does not know this long after is released. */
const ABSENT_AFTER_SECONDS = 600;
/** The first key of the advisory locks of EVM accounts (the second is the account's hash). */
const ACCOUNT_LOCKS = 0x65766d;

/** The calls of this process waiting for each account, so that only one at a time holds a connection waiting. */
const queues = new Map<string, Promise<unknown>>();

/**
 * Runs one payment of an EVM account alone across replicas: in this process one call at a time,
 * then a session-level advisory lock on a connection of the lock pool, held until `task` ends. Its nonce comes from the slot: the node's pending count, past any nonce broadcast in the
 * last two minutes (by any replica, through a node that may not show it yet). Each is reserved
 * (committed) before anything is signed with it, marked broadcast just before it goes out, and
 * given back when nothing was broadcast. The lock serializes the account, so a reservation not
 * marked broadcast when the next holder reads it was abandoned (a crash): its nonce is free at once.
 */
export async function withAccount<T>(
  pools: PgPools,
  chainId: number,
  address: string,
  task: (slot: NonceSlot) => Promise<T>,
): Promise<T> {
  const account = address.toLowerCase();
  const key = `${chainId}:${account}`;
  const before = queues.get(key) ?? Promise.resolve();
  const run = before.catch(() => undefined).then(() => locked(pools, chainId, account, key, task));
  queues.set(key, run);
  try {
    return await run;
  } finally {
    if (queues.get(key) === run) queues.delete(key);
  }
}

/**
 * The account's lock is a session-level advisory lock on a connection of the lock pool, taken and
 * given back by statements that commit at once: no transaction stays open while the node answers.
 * The connection may die while the task runs (the server restarts, an administrator terminates
 * it): the server then frees the lock, and another replica may take it. The slot refuses to go on
 * (BUSY) from then on, and marks a nonce broadcast on the lock's own connection: a mark that
 * succeeds proves the lock was held when it was made, so a payment whose lock was lost never
 * marks (nor broadcasts), and a mark is never left by one that then did not broadcast.
 */
async function locked<T>(
  pools: PgPools,
  chainId: number,
  account: string,
  key: string,
  task: (slot: NonceSlot) => Promise<T>,
): Promise<T> {
  let client: PoolClient;
  try {
    client = await pools.locks.connect();
  } catch (error) {
    throw storeError(error, pools.shown);
  }
  let lost = false;
  const onLost = (): void => {
    lost = true;
  };
  client.on('error', onLost);
  client.on('end', onLost);
  const held = (): void => {
    if (lost) throw lockLost(pools.shown);
  };
  const onLock = async (text: string, values: unknown[]): Promise<number> => {
    held();
    try {
      return (await client.query(text, values)).rowCount ?? 0;
    } catch {
      lost = true;
      throw lockLost(pools.shown);
    }
  };
  let locked = false;
  try {
    try {
      await client.query('SELECT pg_advisory_lock($1, hashtext($2))', [ACCOUNT_LOCKS, key]);
      locked = true;
    } catch (error) {
      lost = true;
      throw storeError(error, pools.shown);
    }
    await releaseAbandoned(pools, chainId, account);
    return await task(slotOf(pools, chainId, account, held, onLock, () => lost));
  } finally {
    // A connection that may still hold the lock never goes back to the pool: it is closed (which frees it).
    if (locked && !lost) {
      await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [ACCOUNT_LOCKS, key]).catch(onLost);
    }
    client.off('error', onLost);
    client.off('end', onLost);
    client.release(lost || !locked);
  }
}

function lockLost(shown: string): WalletError {
  return new WalletError(
    'BUSY',
    `The connection to the state store ${shown} holding this account's lock was lost; nothing was broadcast.`,
    { hint: 'Retry in a moment; check that PostgreSQL is up and reachable (wallet state status).' },
  );
}

function slotOf(
  pools: PgPools,
  chainId: number,
  account: string,
  held: () => void,
  onLock: (text: string, values: unknown[]) => Promise<number>,
  lost: () => boolean,
): NonceSlot {
  /** The spend key each nonce reserved here signs. */
  const keys = new Map<number, string | null>();
  return {
    next: async (pending) => {
      held();
      const rows = await query(
        pools,
        `SELECT nonce::text AS nonce FROM wallet_evm_nonces
         WHERE chain_id = $1 AND address = $2 AND nonce >= $3
           AND broadcast_at > now() - make_interval(secs => $4)
         ORDER BY nonce`,
        [chainId, account, pending, FRESH_SECONDS],
      );
      let nonce = pending;
      for (const row of rows) {
        if (Number(row['nonce']) !== nonce) break;
        nonce++;
      }
      return nonce;
    },
    broadcastWith: async (nonce) => {
      held();
      // The lock was just taken: every reservation left unmarked was released, so those found are marked.
      const [row] = await query(
        pools,
        `SELECT hash FROM wallet_evm_nonces
         WHERE chain_id = $1 AND address = $2 AND nonce = $3
           AND broadcast_at > now() - make_interval(secs => $4)`,
        [chainId, account, nonce, FRESH_SECONDS],
      );
      return row === undefined ? undefined : { hash: row['hash'] === null ? null : String(row['hash']) };
    },
    reserve: async (nonce, spendKey) => {
      // On the lock's connection too: a reservation made once the lock was lost (its connection
      // ended before this process heard of it) could overwrite the one another replica, holding
      // the lock now, marked broadcast; it fails (BUSY, nothing signed) instead.
      keys.set(nonce, spendKey);
      await onLock(
        `INSERT INTO wallet_evm_nonces (chain_id, address, nonce, spend_key) VALUES ($1, $2, $3, $4)
         ON CONFLICT (chain_id, address, nonce) DO UPDATE
           SET reserved_at = now(), broadcast_at = NULL, spend_key = excluded.spend_key, hash = NULL`,
        [chainId, account, nonce, spendKey],
      );
    },
    broadcasting: async (nonce, hash) => {
      // On the lock's connection, committed at once: it fails (BUSY, nothing broadcast) unless the
      // lock is still held; a replica that takes the lock after it skips the nonce.
      const marked = await onLock(
        `UPDATE wallet_evm_nonces SET broadcast_at = now(), hash = $5
         WHERE chain_id = $1 AND address = $2 AND nonce = $3 AND spend_key IS NOT DISTINCT FROM $4`,
        [chainId, account, nonce, keys.get(nonce) ?? null, hash],
      );
      if (marked === 0) throw lockLost(pools.shown);
    },
    release: async (nonce) => {
      // With the lock lost, the nonce may be another replica's reservation by now: left as it is.
      if (lost()) return;
      await query(pools, 'DELETE FROM wallet_evm_nonces WHERE chain_id = $1 AND address = $2 AND nonce = $3', [
        chainId,
        account,
        nonce,
      ]);
    },
  };
}

/**
 * Releases the account's reservations that were never marked broadcast, its lock just taken: the
 * lock serializes the account, so their holder is gone (a replica killed between reservation and
 * broadcast, or one whose lock was lost, whose mark then fails). Nothing went out with them: their
 * nonces are free, and the spends they recorded in the ledgers (by spend key) are taken out.
 */
async function releaseAbandoned(pools: PgPools, chainId: number, account: string): Promise<void> {
  await inTransaction(pools, async (client) => {
    const gone = await client.query<{ spend_key: string | null }>(
      `DELETE FROM wallet_evm_nonces WHERE chain_id = $1 AND address = $2 AND broadcast_at IS NULL RETURNING spend_key`,
      [chainId, account],
    );
    const keys = gone.rows.map((row) => row.spend_key).filter((key): key is string => key !== null);
    if (keys.length > 0) await client.query('DELETE FROM wallet_ledger_entries WHERE key = ANY($1)', [keys]);
  });
}

/**
 * The EVM chains whose nonce reservations reconciliation has anything to do with (marked
 * broadcast, and not in the sent log, or in it for longer than {@link FRESH_SECONDS}: those
 * {@link reconcileChain} deletes): one query, so a start with nothing left asks no node, loads
 * nothing more, and asks no more of the store. A payment just recorded is not work.
 */
export async function chainsToReconcile(pools: PgPools): Promise<number[]> {
  const rows = await query(
    pools,
    `SELECT DISTINCT chain_id::text AS chain_id FROM wallet_evm_nonces n
     WHERE broadcast_at IS NOT NULL
       AND (broadcast_at < now() - make_interval(secs => $1)
         OR NOT EXISTS (SELECT 1 FROM wallet_evm_sent s WHERE s.chain_id = n.chain_id AND s.hash = n.hash))`,
    [FRESH_SECONDS],
  );
  return rows.map((row) => Number(row['chain_id']));
}

/**
 * Reconciles, at a replica's start, the reservations of chain `chainId` marked broadcast and not
 * in the sent log (their replica died between the mark and the record), each under its account's lock, against the chain (`judge`, which asks the node):
 * mined → committed (the chain holds its nonce: the reservation goes, its ledger entry stays, and
 * `mined` records what was sent, as a replica killed before its record would have); another
 * transaction took its nonce (`replaced`), or the node does not know it {@link ABSENT_AFTER_SECONDS}
 * after its broadcast (`absent`) → released: the reservation goes, so its nonce is refilled by the
 * next payment, and its ledger entries are taken out (it can never be mined). Pending: left.
 */
export async function reconcileChain(
  pools: PgPools,
  chainId: number,
  judge: (reservation: MarkedReservation) => Promise<ChainVerdict>,
  mined: (reservation: MarkedReservation) => Promise<void>,
): Promise<Reconciled> {
  // A reservation whose transaction is in the sent log went out and was recorded: settled, and
  // once the node's pending count shows it (past FRESH_SECONDS) the row has done its work.
  await query(
    pools,
    `DELETE FROM wallet_evm_nonces n USING wallet_evm_sent s
     WHERE n.chain_id = $1 AND s.chain_id = n.chain_id AND s.hash = n.hash
       AND n.broadcast_at < now() - make_interval(secs => $2)`,
    [chainId, FRESH_SECONDS],
  );
  const rows = await query(
    pools,
    `SELECT address, nonce::text AS nonce, hash, broadcast_at < now() - make_interval(secs => $2) AS overdue
     FROM wallet_evm_nonces n WHERE chain_id = $1 AND broadcast_at IS NOT NULL AND hash IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM wallet_evm_sent s WHERE s.chain_id = n.chain_id AND s.hash = n.hash)
     ORDER BY address, nonce`,
    [chainId, ABSENT_AFTER_SECONDS],
  );
  const done: Reconciled = { committed: [], released: [] };
  for (const row of rows) {
    const reservation = { address: String(row['address']), nonce: Number(row['nonce']), hash: String(row['hash']) };
    await withAccount(pools, chainId, reservation.address, async () => {
      const verdict = await judge(reservation);
      if (verdict === 'mined') {
        await mined(reservation);
        await settle(pools, chainId, reservation, false);
        done.committed.push(reservation);
      } else if (verdict === 'replaced' || (verdict === 'absent' && row['overdue'] === true)) {
        await settle(pools, chainId, reservation, true);
        done.released.push(reservation);
      }
    });
  }
  return done;
}

/** Ends a marked reservation (the same hash still: a later payment may have taken the row over). */
async function settle(
  pools: PgPools,
  chainId: number,
  reservation: MarkedReservation,
  release: boolean,
): Promise<void> {
  await inTransaction(pools, async (client) => {
    const gone = await client.query<{ spend_key: string | null }>(
      'DELETE FROM wallet_evm_nonces WHERE chain_id = $1 AND address = $2 AND nonce = $3 AND hash = $4 RETURNING spend_key',
      [chainId, reservation.address, reservation.nonce, reservation.hash],
    );
    const key = gone.rows[0]?.spend_key;
    if (release && key) await client.query('DELETE FROM wallet_ledger_entries WHERE key = $1', [key]);
  });
}

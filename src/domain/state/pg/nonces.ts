import type { PoolClient } from 'pg';
import { WalletError } from '../../errors.js';
import type { NonceSlot } from '../store.js';
import { query, storeError, type PgPools } from './client.js';

/** A nonce broadcast less than this ago may not show in another node's pending count yet: it is skipped. */
const FRESH_SECONDS = 120;
/** The first key of the advisory locks of EVM accounts (the second is the account's hash). */
const ACCOUNT_LOCKS = 0x65766d;

/** The calls of this process waiting for each account, so that only one at a time holds a connection waiting. */
const queues = new Map<string, Promise<unknown>>();

/**
 * Runs one payment of an EVM account alone across replicas: in this process one call at a time,
 * then a transaction-scoped advisory lock on a connection of the lock pool, held until `task`
 * ends. Its nonce comes from the slot: the node's pending count, past any nonce broadcast in the
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
 * The lock's connection may die while the task runs (the server restarts, an administrator
 * terminates it, idle_in_transaction_session_timeout): the lock is then gone, and another replica
 * may hold it. The slot refuses to go on (BUSY) from then on; before a broadcast it asks the
 * connection whether it is still there.
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
  const held = async (check: boolean): Promise<void> => {
    if (!lost && check) await client.query('SELECT 1').catch(onLost);
    if (lost) throw lockLost(pools.shown);
  };
  try {
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ACCOUNT_LOCKS, key]);
    } catch (error) {
      lost = true;
      throw storeError(error, pools.shown);
    }
    const result = await task(slotOf(pools, chainId, account, held, () => lost));
    if (!lost) await client.query('COMMIT').catch(onLost);
    return result;
  } catch (error) {
    if (!lost) await client.query('ROLLBACK').catch(onLost);
    throw error;
  } finally {
    client.off('error', onLost);
    client.off('end', onLost);
    client.release(lost);
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
  held: (check: boolean) => Promise<void>,
  lost: () => boolean,
): NonceSlot {
  return {
    next: async (pending) => {
      await held(false);
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
    reserve: async (nonce) => {
      await held(false);
      await query(
        pools,
        `INSERT INTO wallet_evm_nonces (chain_id, address, nonce) VALUES ($1, $2, $3)
         ON CONFLICT (chain_id, address, nonce) DO UPDATE SET reserved_at = now(), broadcast_at = NULL`,
        [chainId, account, nonce],
      );
    },
    broadcasting: async (nonce) => {
      // Marked (committed) first, then the lock checked: a replica that took the lock after this
      // mark skips the nonce; one that took it before, so reusing the nonce, makes the check fail.
      await query(
        pools,
        'UPDATE wallet_evm_nonces SET broadcast_at = now() WHERE chain_id = $1 AND address = $2 AND nonce = $3',
        [chainId, account, nonce],
      );
      await held(true);
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

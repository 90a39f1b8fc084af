import type { PoolClient } from 'pg';
import type { NonceSlot } from '../store.js';
import { query, storeError, type PgPools } from './client.js';

/** A reservation younger than this is another replica's payment in flight: its nonce is skipped. */
const FRESH_SECONDS = 120;
/** The first key of the advisory locks of EVM accounts (the second is the account's hash). */
const ACCOUNT_LOCKS = 0x65766d;

/** The calls of this process waiting for each account, so that only one at a time holds a connection waiting. */
const queues = new Map<string, Promise<unknown>>();

/**
 * Runs one payment of an EVM account alone across replicas: in this process one call at a time,
 * then a transaction-scoped advisory lock on a connection of the lock pool, held until `task`
 * ends. Its nonce comes from the slot: the node's pending count, past any nonce another replica
 * reserved in the last two minutes (a broadcast the node may not show yet); each is reserved
 * (committed) before anything is signed with it, and given back when nothing was broadcast.
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
  let broken = false;
  try {
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ACCOUNT_LOCKS, key]);
    } catch (error) {
      broken = true;
      throw storeError(error, pools.shown);
    }
    const result = await task(slotOf(pools, chainId, account));
    await client.query('COMMIT').catch(() => (broken = true));
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => (broken = true));
    throw error;
  } finally {
    client.release(broken);
  }
}

function slotOf(pools: PgPools, chainId: number, account: string): NonceSlot {
  return {
    next: async (pending) => {
      const rows = await query(
        pools,
        `SELECT nonce::text AS nonce FROM wallet_evm_nonces
         WHERE chain_id = $1 AND address = $2 AND nonce >= $3 AND reserved_at > now() - make_interval(secs => $4)
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
      await query(
        pools,
        `INSERT INTO wallet_evm_nonces (chain_id, address, nonce) VALUES ($1, $2, $3)
         ON CONFLICT (chain_id, address, nonce) DO UPDATE SET reserved_at = now()`,
        [chainId, account, nonce],
      );
    },
    release: async (nonce) => {
      await query(pools, 'DELETE FROM wallet_evm_nonces WHERE chain_id = $1 AND address = $2 AND nonce = $3', [
        chainId,
        account,
        nonce,
      ]);
    },
  };
}

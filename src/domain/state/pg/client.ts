import type { Pool, PoolClient } from 'pg';
import { WalletError } from '../../errors.js';
import type { StateLocation } from '../state-url.js';

/** How long a call waits for a connection to the store before it is BUSY. */
const CONNECT_TIMEOUT_MS = 5_000;
/** How often a transaction that lost a serialization race is tried again. */
const RETRIES = 5;

/**
 * The connections to the store: `pool` for the ledgers, the audit log and the nonce records, and
 * `locks` for the per-account locks held through a payment, so that calls waiting for an account
 * never take the connections the holder needs to finish.
 */
export type PgPools = { pool: Pool; locks: Pool; shown: string };

/**
 * Connects to the store at `location`, loading node-postgres only now (no other command pays for
 * it). The password is the location's (an owner-only file) or libpq's environment, which
 * node-postgres reads itself (PGPASSWORD, PGPASSFILE, ~/.pgpass); TLS as the URL's sslmode says.
 */
export async function openPools(location: StateLocation): Promise<PgPools> {
  const { default: pg } = await import('pg');
  // node-postgres lets the URL's fields override the options given beside it (a password among
  // them), so the password joins the URL here, in memory only: never shown, never in argv.
  const url = new URL(location.url);
  if (location.password !== undefined) url.password = encodeURIComponent(location.password);
  const make = (max: number): Pool => {
    const pool = new pg.Pool({
      connectionString: url.toString(),
      max,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      idleTimeoutMillis: 10_000,
      application_name: 'wallet',
      // Idle connections never keep a finished command (or a stopped server) alive.
      allowExitOnIdle: true,
    });
    // A connection that dies while idle (the server restarted) is dropped; the next call reconnects.
    pool.on('error', () => undefined);
    // pg-pool listens for its clients' errors only while they are idle: one checked out (a payment's
    // account lock, a ledger update, both held across calls to a node) that loses its backend
    // (restart, pg_terminate_backend, idle_in_transaction_session_timeout) would emit an 'error'
    // nobody hears, and the process would exit. Its next query fails instead, and the call is BUSY.
    pool.on('connect', (client) => client.on('error', () => undefined));
    return pool;
  };
  return { pool: make(8), locks: make(8), shown: location.shown };
}

/** Closes both pools. */
export async function closePools(pools: PgPools): Promise<void> {
  await Promise.allSettled([pools.pool.end(), pools.locks.end()]);
}

/**
 * Runs `task` in one transaction on a connection of `pool`: committed when it returns, rolled back
 * when it throws. A serialization failure or a deadlock is tried again; a store that cannot be
 * reached is BUSY ({@link storeError}).
 */
export async function inTransaction<T>(
  pools: PgPools,
  task: (client: PoolClient) => Promise<T>,
  options: { pool?: Pool; afterTask?: string } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await connect(pools, options.pool ?? pools.pool);
    let broken = false;
    let done = false;
    try {
      await client.query('BEGIN');
      const result = await task(client);
      done = true;
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
      if (retryable(error) && attempt < RETRIES) continue;
      if (!fromStore(error)) throw error;
      throw storeError(error, pools.shown, done ? options.afterTask : undefined);
    } finally {
      client.release(broken);
    }
  }
}

/** A statement outside any transaction (committed at once). */
export async function query(pools: PgPools, text: string, values: unknown[] = []): Promise<Record<string, unknown>[]> {
  try {
    return (await pools.pool.query(text, values)).rows as Record<string, unknown>[];
  } catch (error) {
    throw storeError(error, pools.shown);
  }
}

async function connect(pools: PgPools, pool: Pool): Promise<PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw storeError(error, pools.shown);
  }
}

/** SQLSTATE of an error from the server, or the system's code of a failed connection. */
function codeOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string'
    ? error.code
    : '';
}

const CONNECTION_LOST =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i;

/** Whether `error` came from the store or its connection (else it is the task's own, passed on as it is). */
export function fromStore(error: unknown): boolean {
  if (error instanceof WalletError) return false;
  return codeOf(error) !== '' || (error instanceof Error && CONNECTION_LOST.test(error.message));
}

function retryable(error: unknown): boolean {
  return ['40001', '40P01'].includes(codeOf(error));
}

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
]);

/** pg-pool's words when every connection of the pool stayed in use for the whole wait. */
const POOL_EXHAUSTED = /timeout exceeded when trying to connect/i;

/**
 * A failure of the store as the caller acts on it: unreachable, restarting or failing over →
 * BUSY (retry in a moment); every connection of this replica in use → BUSY; a refused login →
 * INVALID_PARAM; a schema that is not there → BACKEND_INVALID (run `wallet state migrate`);
 * anything else BACKEND_INVALID. `happened` says what the call had done by then (default: nothing
 * was signed or sent). Never quotes the server's message (it may echo a statement's values).
 */
export function storeError(error: unknown, shown: string, happened = 'nothing was signed or sent'): WalletError {
  if (error instanceof WalletError) return error;
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : '';
  if (POOL_EXHAUSTED.test(message)) {
    return new WalletError(
      'BUSY',
      `Every connection of this replica to the state store ${shown} stayed in use for ${CONNECT_TIMEOUT_MS / 1000} s; ${happened}.`,
      { hint: 'Retry in a moment: other calls of this replica hold them (payments waiting on a node).', cause: error },
    );
  }
  if (UNREACHABLE.has(code) || code.startsWith('08') || code.startsWith('57P') || CONNECTION_LOST.test(message)) {
    return new WalletError('BUSY', `The state store ${shown} cannot be reached; ${happened}.`, {
      hint: 'Retry in a moment; check that PostgreSQL is up and reachable (wallet state status).',
      cause: error,
    });
  }
  if (code === '28P01' || code === '28000') {
    return new WalletError('INVALID_PARAM', `The state store ${shown} refused the login.`, {
      hint: 'Give the password in PGPASSWORD, a PGPASSFILE, or an owner-only file named by state.password_file.',
      cause: error,
    });
  }
  if (code === '42P01') {
    return new WalletError('BACKEND_INVALID', `The state store ${shown} has no wallet schema yet.`, {
      hint: 'Run `wallet state migrate` once, with the same WALLET_STATE_URL.',
      cause: error,
    });
  }
  return new WalletError('BACKEND_INVALID', `The state store ${shown} failed (${code || 'no code'}); ${happened}.`, {
    hint: 'Check the server log of PostgreSQL; `wallet state status` shows what the wallet sees.',
    cause: error,
  });
}

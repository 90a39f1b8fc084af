import type { PoolClient } from 'pg';
import { z } from 'zod';
import { nodeCrypto } from '../../../shared/node-crypto.js';
import { WalletError } from '../../errors.js';
import { openWithKey, passphraseKey, sealWithKey } from '../../keystore/cipher.js';
import {
  ApprovalTaskSchema,
  forgottenTask,
  StoredCallSchema,
  type ApprovalTask,
  type CallPassphrase,
  type StoredCall,
  type TaskRecords,
} from '../../policy/task-record.js';
import { STORE_NOW_MS } from './approvals.js';
import { inTransaction, query, type PgPools } from './client.js';

/** The key of the transaction-scoped advisory lock that serializes changes of the tasks. */
export const TASKS_LOCK = 0x7461736b;
/**
 * How long a replica's hold on a call lasts without being renewed (it renews every few seconds
 * while it holds the call's arguments or runs it): past it, the replica is taken as gone.
 */
const TASK_LEASE_SECONDS = 30;

const ResultSchema = z.record(z.string(), z.unknown());

/** Authenticated with every sealed call: what it is, its task and the approval's digest. */
const SEAL_FORMAT = 'wallet-task-call-v1';
/** The row of `wallet_task_call_salts` the calls' key is derived with. */
const SALT_NAME = 'calls';
/** What a sealed call authenticates with it: what it is, its task and the approval's digest. */
function sealedWith(id: string, digest: string): string {
  return `${SEAL_FORMAT}\0${id}\0${digest}`;
}

/**
 * How long a waiting task's sealed call is kept at most: an approval waits 15 minutes, and a yes
 * leaves its call 15 more (src/domain/policy/approvals.ts); past that it cannot run.
 */
const CALL_KEPT_SECONDS = 30 * 60;

/**
 * The MCP tasks in the state store: a row of `wallet_approval_tasks` each, what the task file
 * would hold (the call's arguments only sealed, while the task waits, and only when the server
 * has the keystore passphrase to seal them with), the replica holding the call with its lease (renewed
 * while it holds it), and the tool's result once it ran. A change holds the tasks' advisory lock
 * from reading them to writing them, in one transaction on the pool of held locks (its step may
 * take an approval on the other pool meanwhile: waiting changes never starve it of connections).
 */
export class PgTasks implements TaskRecords {
  readonly path: string;
  /** This process as the holder of the calls it took: `rp-` and 16 base32 letters. */
  readonly replica: string;
  /** The key calls are sealed with, once derived (see {@link PgTasks.sealKey}). */
  private key: Promise<Buffer | undefined> | undefined;

  constructor(private readonly pools: PgPools) {
    this.path = `the state store ${pools.shown} (wallet_approval_tasks)`;
    const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
    this.replica = `rp-${[...nodeCrypto().randomBytes(16)].map((byte) => alphabet[byte & 31]).join('')}`;
  }

  async read(): Promise<{ tasks: ApprovalTask[]; now: number }> {
    const [clock] = await query(this.pools, `SELECT ${STORE_NOW_MS} AS now`);
    return { tasks: this.parse(await query(this.pools, SELECT_TASKS)), now: Number(clock?.['now']) };
  }

  async change<T>(
    update: (tasks: ApprovalTask[], now: number) => Promise<{ tasks: ApprovalTask[]; result: T }>,
  ): Promise<T> {
    return inTransaction(
      this.pools,
      async (client) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [TASKS_LOCK]);
        const now = Number((await client.query(`SELECT ${STORE_NOW_MS} AS now`)).rows[0]?.now);
        const all = this.parse((await client.query(SELECT_TASKS)).rows);
        const kept = all.filter((task) => !forgottenTask(task, now));
        const { tasks, result } = await update(kept, now);
        await this.write(client, all, tasks);
        // A call leaves the store as soon as its task stops waiting, or can no longer run.
        await client.query(
          `UPDATE wallet_approval_tasks SET sealed_call = NULL WHERE sealed_call IS NOT NULL
           AND (state <> 'working' OR (record->>'created')::timestamptz < clock_timestamp() - make_interval(secs => $1))`,
          [CALL_KEPT_SECONDS],
        );
        return result;
      },
      { pool: this.pools.locks },
    );
  }

  /**
   * Seals the call of task `id` (still waiting) into its row: AES-256-GCM under the key of
   * {@link PgTasks.sealKey}, the task's id and digest authenticated with it. Without a passphrase
   * at hand nothing is kept: the call stays in the memory of this replica.
   */
  async keepCall(id: string, call: StoredCall, passphrase: CallPassphrase): Promise<boolean> {
    const key = await this.sealKey(passphrase);
    if (!key) return false;
    const [row] = await query(
      this.pools,
      "SELECT record->>'digest' AS digest FROM wallet_approval_tasks WHERE id = $1",
      [id],
    );
    if (typeof row?.['digest'] !== 'string') return false;
    const { iv, ciphertext, tag } = sealWithKey(key, JSON.stringify(call), sealedWith(id, row['digest']));
    const sealed = Buffer.concat([iv, ciphertext, tag]);
    const kept = await query(
      this.pools,
      "UPDATE wallet_approval_tasks SET sealed_call = $2 WHERE id = $1 AND state = 'working' RETURNING id",
      [id, sealed],
    );
    return kept.length === 1;
  }

  /** The call sealed for task `id` while it waits, if this server's passphrase opens it. */
  async call(id: string, passphrase: CallPassphrase): Promise<StoredCall | undefined> {
    const [row] = await query(
      this.pools,
      `SELECT sealed_call, record->>'digest' AS digest FROM wallet_approval_tasks
       WHERE id = $1 AND state = 'working' AND sealed_call IS NOT NULL`,
      [id],
    );
    const sealed = row?.['sealed_call'];
    if (!(sealed instanceof Buffer) || typeof row?.['digest'] !== 'string' || sealed.length < 12 + 16) return undefined;
    const key = await this.sealKey(passphrase);
    if (!key) return undefined;
    const parts = {
      iv: sealed.subarray(0, 12),
      ciphertext: sealed.subarray(12, sealed.length - 16),
      tag: sealed.subarray(sealed.length - 16),
    };
    // Another passphrase, or a row altered: not a call this server can run.
    const text = openWithKey(key, parts, sealedWith(id, row['digest']));
    if (text === undefined) return undefined;
    try {
      const parsed = StoredCallSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The key calls are sealed with: scrypt (the keystore's cost) of the keystore passphrase and the
   * store's salt (made once, by the first replica that seals), derived once per process; undefined
   * without a passphrase. A failure (the store down) is tried again at the next call.
   */
  private sealKey(passphrase: CallPassphrase): Promise<Buffer | undefined> {
    this.key ??= (async () => {
      const secret = await passphrase();
      if (secret === undefined || secret === '') return undefined;
      await query(
        this.pools,
        'INSERT INTO wallet_task_call_salts (name, salt) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING',
        [SALT_NAME, nodeCrypto().randomBytes(32)],
      );
      const [row] = await query(this.pools, 'SELECT salt FROM wallet_task_call_salts WHERE name = $1', [SALT_NAME]);
      const salt = row?.['salt'];
      if (!(salt instanceof Buffer)) throw new Error('no salt');
      return passphraseKey(secret, salt);
    })().catch((error: unknown) => {
      this.key = undefined;
      throw error;
    });
    return this.key.catch(() => undefined);
  }

  async keepResult(id: string, result: Record<string, unknown>): Promise<void> {
    await query(this.pools, 'UPDATE wallet_approval_tasks SET result = $2::jsonb WHERE id = $1', [
      id,
      JSON.stringify(result),
    ]);
  }

  async result(id: string): Promise<Record<string, unknown> | undefined> {
    const [row] = await query(this.pools, 'SELECT result FROM wallet_approval_tasks WHERE id = $1', [id]);
    if (row?.['result'] === null || row?.['result'] === undefined) return undefined;
    const parsed = ResultSchema.safeParse(row['result']);
    if (!parsed.success) {
      throw new WalletError('INTERNAL', `The result of task ${id.slice(0, 64)} in ${this.path} is damaged.`, {
        hint: 'The audit log and the account or wallet show what it did; do not call again to find out.',
      });
    }
    return parsed.data;
  }

  async renew(ids: readonly string[]): Promise<void> {
    await query(
      this.pools,
      `UPDATE wallet_approval_tasks SET lease_until = clock_timestamp() + make_interval(secs => $3)
       WHERE replica = $1 AND id = ANY($2) AND state IN ('working', 'running')`,
      [this.replica, ids, TASK_LEASE_SECONDS],
    );
  }

  /** Writes what changed: rows gone are deleted, new or changed ones upserted (this replica's with a fresh lease). */
  private async write(
    client: PoolClient,
    before: readonly ApprovalTask[],
    after: readonly ApprovalTask[],
  ): Promise<void> {
    const kept = new Set(after.map((task) => task.id));
    const gone = before.filter((task) => !kept.has(task.id)).map((task) => task.id);
    if (gone.length > 0) await client.query('DELETE FROM wallet_approval_tasks WHERE id = ANY($1)', [gone]);
    const old = new Map(before.map((task) => [task.id, JSON.stringify(task)]));
    for (const task of after.filter((each) => old.get(each.id) !== JSON.stringify(each))) {
      const { replica, held: _held, ...record } = ApprovalTaskSchema.parse(task);
      await client.query(
        `INSERT INTO wallet_approval_tasks (id, session, approval, state, updated_at, record, replica, lease_until)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::text,
                 CASE WHEN $7::text = $8::text THEN clock_timestamp() + make_interval(secs => $9) END)
         ON CONFLICT (id) DO UPDATE SET state = excluded.state, updated_at = excluded.updated_at,
           record = excluded.record, replica = excluded.replica,
           lease_until = CASE WHEN excluded.replica = $8::text THEN excluded.lease_until
                              ELSE wallet_approval_tasks.lease_until END`,
        [
          record.id,
          record.session,
          record.approval,
          record.state,
          record.updated,
          JSON.stringify(record),
          replica ?? null,
          this.replica,
          TASK_LEASE_SECONDS,
        ],
      );
    }
  }

  /** Each row checked (zod); one that is not a task is POLICY_VIOLATION, never left out. */
  private parse(rows: readonly Record<string, unknown>[]): ApprovalTask[] {
    return rows.map((row) => {
      const parsed = ApprovalTaskSchema.safeParse({
        ...(typeof row['record'] === 'object' ? row['record'] : {}),
        ...(typeof row['replica'] === 'string' ? { replica: row['replica'], held: row['held'] === true } : {}),
      });
      if (!parsed.success || parsed.data.id !== row['id']) {
        throw new WalletError('POLICY_VIOLATION', `The task rows of ${this.path} are damaged.`, {
          hint: 'Delete the damaged row: its client calls again; no approval is lost.',
        });
      }
      return parsed.data;
    });
  }
}

/** Every task, oldest first, with whether its holder's lease is current by the store's clock. */
const SELECT_TASKS = `SELECT id, record, replica, (lease_until IS NOT NULL AND lease_until > clock_timestamp()) AS held
  FROM wallet_approval_tasks ORDER BY (record->>'created'), id`;

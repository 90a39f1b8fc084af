import type { PoolClient } from 'pg';
import { WalletError } from '../../errors.js';
import {
  ApprovalSchema,
  forgottenApproval,
  type Approval,
  type ApprovalRecords,
} from '../../policy/approval-record.js';
import type { PasskeyRecords } from '../../policy/passkey-record.js';
import { inTransaction, query, type PgPools } from './client.js';

/** The key of the transaction-scoped advisory lock that serializes changes of the approvals. */
export const APPROVALS_LOCK = 0x61707072;

/** The store's clock, in milliseconds: every replica judges expiry by the same one. */
export const STORE_NOW_MS = '(extract(epoch FROM clock_timestamp()) * 1000)::float8';

/**
 * The approvals in the state store: a row of `wallet_approvals` each (the approval as its file
 * would hold it, with its status and expiry in columns for `wallet state status`). A change holds
 * the approvals' advisory lock from reading them to writing them, in one transaction, with the
 * time by the store's clock: an approved call is taken (`used`) by one replica only, the others
 * see it used; a yes given on one replica is seen by all.
 */
export class PgApprovals implements ApprovalRecords {
  readonly path: string;
  /** Whether a passkey is enrolled, as read in the change under way, under its lock (see {@link change}). */
  private enrolledInChange: boolean | undefined;

  constructor(
    private readonly pools: PgPools,
    private readonly passkeys: PasskeyRecords,
  ) {
    this.path = `the state store ${pools.shown} (wallet_approvals)`;
  }

  async read(): Promise<{ approvals: Approval[]; now: number }> {
    const [clock] = await query(this.pools, `SELECT ${STORE_NOW_MS} AS now`);
    const rows = await query(this.pools, 'SELECT id, record FROM wallet_approvals');
    return { approvals: this.parse(rows), now: Number(clock?.['now']) };
  }

  async change<T>(update: (approvals: Approval[], now: number) => { approvals: Approval[]; result: T }): Promise<T> {
    return inTransaction(this.pools, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [APPROVALS_LOCK]);
      const now = Number((await client.query(`SELECT ${STORE_NOW_MS} AS now`)).rows[0]?.now);
      const all = this.parse((await client.query('SELECT id, record FROM wallet_approvals')).rows);
      const kept = all.filter((approval) => !forgottenApproval(approval, now));
      // Read in this transaction, after every enrolment committed before it: what the update's
      // check of a yes without a passkey goes by (a failed read fails the change, never "none").
      const enrolled = await client.query(ENROLLED);
      // The update is synchronous: no other change of this object runs between these lines.
      this.enrolledInChange = enrolled.rows[0]?.any !== false;
      let changed: { approvals: Approval[]; result: T };
      try {
        changed = update(kept, now);
      } finally {
        this.enrolledInChange = undefined;
      }
      await write(client, all, changed.approvals);
      return changed.result;
    });
  }

  /**
   * Read from the store now. A read that fails throws (BUSY when the store is down): "unknown" must
   * neither accept a yes without a passkey nor drop one as given without it, nor tell the owner
   * that a passkey is enrolled.
   */
  async passkeyEnrolled(): Promise<boolean> {
    const [row] = await query(this.pools, ENROLLED);
    return row?.['any'] !== false;
  }

  /** Under a change's lock: its own read of the passkeys; elsewhere, this replica's latest read. */
  passkeyEnrolledCached(): boolean {
    return this.enrolledInChange ?? this.passkeys.enrolled();
  }

  /** Each row checked (zod); one that is not an approval is POLICY_VIOLATION, never left out. */
  private parse(rows: readonly Record<string, unknown>[]): Approval[] {
    return rows
      .map((row) => {
        const parsed = ApprovalSchema.safeParse(row['record']);
        if (!parsed.success || parsed.data.id !== row['id']) {
          throw new WalletError('POLICY_VIOLATION', `The approval rows of ${this.path} are damaged.`, {
            hint: 'Nothing is approved while they are: delete the damaged row; its call is then asked again.',
          });
        }
        return parsed.data;
      })
      .sort((a, b) => a.requested.localeCompare(b.requested) || a.id.localeCompare(b.id));
  }
}

const ENROLLED = 'SELECT EXISTS (SELECT 1 FROM wallet_passkeys) AS any';

/** Writes what changed from `before` to `after`: rows gone are deleted, new or changed ones upserted. */
async function write(client: PoolClient, before: readonly Approval[], after: readonly Approval[]): Promise<void> {
  const kept = new Set(after.map((approval) => approval.id));
  const gone = before.filter((approval) => !kept.has(approval.id)).map((approval) => approval.id);
  if (gone.length > 0) await client.query('DELETE FROM wallet_approvals WHERE id = ANY($1)', [gone]);
  const old = new Map(before.map((approval) => [approval.id, JSON.stringify(approval)]));
  for (const approval of after.filter((each) => old.get(each.id) !== JSON.stringify(each))) {
    const record = ApprovalSchema.parse(approval);
    await client.query(
      `INSERT INTO wallet_approvals (id, digest, status, expires_at, record) VALUES ($1, $2, $3, $4, $5::jsonb)
       ON CONFLICT (id) DO UPDATE SET status = excluded.status, expires_at = excluded.expires_at, record = excluded.record`,
      [record.id, record.digest, record.status, record.expires, JSON.stringify(record)],
    );
  }
}

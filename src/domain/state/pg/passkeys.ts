import { WalletError } from '../../errors.js';
import { PasskeySchema, type Passkey, type PasskeyRecords } from '../../policy/passkey-record.js';
import { inTransaction, query, type PgPools } from './client.js';

/** The key of the transaction-scoped advisory lock that serializes changes of the passkeys. */
export const PASSKEYS_LOCK = 0x706b6579;
/** How often a replica asks the store whether a passkey is enrolled (the approvals ask synchronously). */
const REFRESH_MS = 1_000;

/**
 * The owner's passkeys in the state store: a row of `wallet_passkeys` each (public key, signature
 * counter; no secret). A change holds the passkeys' advisory lock from reading them to writing
 * them, in one transaction: a counter recorded by one replica is the one every other checks
 * against, so an assertion replayed on another replica is refused. Whether any is enrolled is
 * asked synchronously for display: the answer is this replica's latest read (at start, after each
 * change here, and every second); a yes without a passkey is accepted only on a read made at that
 * moment ({@link enrolledNow}). A read that fails answers "enrolled", never "none".
 */
export class PgPasskeys implements PasskeyRecords {
  readonly path: string;
  private any = true;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly pools: PgPools) {
    this.path = `the state store ${pools.shown} (wallet_passkeys)`;
  }

  /** Reads whether any passkey is enrolled now, then keeps reading it every second. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** This replica's latest read: for what is shown (the page's links and buttons), not to accept a yes. */
  enrolled(): boolean {
    return this.any;
  }

  /**
   * Read from the store now: a passkey another replica (or `wallet approvals passkey add`) enrolled
   * a moment ago counts at once. The cached read follows it.
   */
  async enrolledNow(): Promise<boolean> {
    // This read's answer, whatever a periodic read that ends meanwhile sets.
    const any = await this.readAny();
    this.any = any;
    return any;
  }

  async read(): Promise<Passkey[]> {
    const rows = await query(this.pools, 'SELECT id, record FROM wallet_passkeys ORDER BY enrolled_at, id');
    return this.parse(rows);
  }

  async change<T>(update: (passkeys: Passkey[]) => { passkeys: Passkey[]; result: T }): Promise<T> {
    const { result, count } = await inTransaction(this.pools, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [PASSKEYS_LOCK]);
      const rows = await client.query('SELECT id, record FROM wallet_passkeys ORDER BY enrolled_at, id');
      const before = this.parse(rows.rows as Record<string, unknown>[]);
      const { passkeys, result } = update(before);
      const kept = new Set(passkeys.map((passkey) => passkey.id));
      for (const gone of before.filter((passkey) => !kept.has(passkey.id))) {
        await client.query('DELETE FROM wallet_passkeys WHERE id = $1', [gone.id]);
      }
      const old = new Map(before.map((passkey) => [passkey.id, JSON.stringify(passkey)]));
      for (const passkey of passkeys.filter((each) => old.get(each.id) !== JSON.stringify(each))) {
        await client.query(
          `INSERT INTO wallet_passkeys (id, name, record) VALUES ($1, $2, $3::jsonb)
           ON CONFLICT (id) DO UPDATE SET name = excluded.name, record = excluded.record`,
          [passkey.id, passkey.name, JSON.stringify(PasskeySchema.parse(passkey))],
        );
      }
      return { result, count: passkeys.length };
    });
    this.any = count > 0;
    return result;
  }

  private async refresh(): Promise<void> {
    this.any = await this.readAny();
  }

  private async readAny(): Promise<boolean> {
    try {
      const rows = await query(this.pools, 'SELECT EXISTS (SELECT 1 FROM wallet_passkeys) AS any');
      return rows[0]?.['any'] !== false;
    } catch {
      // Unknown: a passkey may be enrolled, so a yes needs one.
      return true;
    }
  }

  /** Each row checked (zod); one that is not a passkey is POLICY_VIOLATION, never left out. */
  private parse(rows: readonly Record<string, unknown>[]): Passkey[] {
    return rows.map((row) => {
      const parsed = PasskeySchema.safeParse(row['record']);
      if (!parsed.success || parsed.data.id !== row['id']) {
        throw new WalletError('POLICY_VIOLATION', `The passkey rows of ${this.path} are damaged.`, {
          hint: 'Nothing is approved while they are: repair or delete the damaged row, and enroll that passkey again.',
        });
      }
      return parsed.data;
    });
  }
}

import { inTransaction, query, type PgPools } from './client.js';

/**
 * The store's schema, one step per version, applied in order and never changed once released (a
 * change is a new step). `wallet state migrate` applies what is missing; a replica refuses to use
 * a store whose version is not {@link SCHEMA_VERSION}.
 */
const MIGRATIONS: readonly string[] = [
  // 1: ledgers, the audit log, nonce reservations, recorded policies.
  `
  CREATE TABLE wallet_ledgers (
    name text PRIMARY KEY,
    chain text NOT NULL
  );
  CREATE TABLE wallet_ledger_entries (
    ledger text NOT NULL REFERENCES wallet_ledgers (name),
    key text NOT NULL,
    txid text,
    amount numeric(80, 0) NOT NULL CHECK (amount >= 0),
    at_ms bigint NOT NULL,
    by_whom text NOT NULL CHECK (by_whom IN ('owner', 'agent')),
    PRIMARY KEY (ledger, key)
  );
  CREATE INDEX wallet_ledger_entries_time ON wallet_ledger_entries (ledger, at_ms);
  CREATE TABLE wallet_audit (
    id bigserial PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT now(),
    line jsonb NOT NULL
  );
  CREATE FUNCTION wallet_audit_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'wallet_audit is append-only';
  END
  $$;
  CREATE TRIGGER wallet_audit_no_change BEFORE UPDATE OR DELETE ON wallet_audit
    FOR EACH ROW EXECUTE FUNCTION wallet_audit_append_only();
  CREATE TRIGGER wallet_audit_no_truncate BEFORE TRUNCATE ON wallet_audit
    FOR EACH STATEMENT EXECUTE FUNCTION wallet_audit_append_only();
  CREATE TABLE wallet_evm_nonces (
    chain_id bigint NOT NULL,
    address text NOT NULL,
    nonce bigint NOT NULL CHECK (nonce >= 0),
    reserved_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (chain_id, address, nonce)
  );
  CREATE TABLE wallet_policies (
    key text PRIMARY KEY,
    policy jsonb NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now()
  );
  `,
  // 2: when a reserved nonce was broadcast (a reservation never broadcast is abandoned once its
  // account's lock is free: reusable at once). IF NOT EXISTS: running it twice changes nothing.
  `
  ALTER TABLE wallet_evm_nonces ADD COLUMN IF NOT EXISTS broadcast_at timestamptz;
  `,
  // 3: the keystore and the passkeys (IF NOT EXISTS: running it twice changes nothing). Each
  // keystore row holds what its file would (docs/REPLICAS.md): public fields, address indexes and
  // EVM accounts in clear, the secret sealed (ciphertext only, never a key). The passkeys are
  // public keys and their signature counters.
  `
  CREATE TABLE IF NOT EXISTS wallet_keystore_wallets (
    id text NOT NULL,
    network text NOT NULL,
    alias text NOT NULL UNIQUE,
    record jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (id, network)
  );
  CREATE TABLE IF NOT EXISTS wallet_keystore_keys (
    address text PRIMARY KEY CHECK (address = lower(address)),
    alias text UNIQUE,
    record jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE IF NOT EXISTS wallet_passkeys (
    id text PRIMARY KEY,
    name text NOT NULL UNIQUE,
    record jsonb NOT NULL,
    enrolled_at timestamptz NOT NULL DEFAULT now()
  );
  `,
  // 4: payments across replicas.
  // The EVM sent log (evm_txs_list): what any replica sent, listed by any replica. What each nonce
  // reservation signs (its spend key in the ledgers, then its hash), so that the next holder of the
  // account, or the next start, reconciles one left by a replica that died. Dash coins held by
  // a payment from coin selection to broadcast, so no two replicas spend one coin.
  `
  CREATE TABLE wallet_evm_sent (
    id bigserial PRIMARY KEY,
    chain_id bigint NOT NULL,
    hash text NOT NULL,
    from_address text NOT NULL,
    record jsonb NOT NULL,
    UNIQUE (chain_id, hash)
  );
  CREATE INDEX wallet_evm_sent_chain ON wallet_evm_sent (chain_id, id);
  ALTER TABLE wallet_evm_nonces ADD COLUMN spend_key text, ADD COLUMN hash text;
  CREATE TABLE wallet_coin_reservations (
    network text NOT NULL,
    outpoint text NOT NULL,
    reservation text NOT NULL,
    txid text,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (network, outpoint)
  );
  CREATE INDEX wallet_coin_reservations_by ON wallet_coin_reservations (reservation);
  `,
  // 5: approvals, and the MCP tasks that wait on them, shared by the replicas. An approval row is
  // the approval as approvals.json holds it (status and expiry also in columns); a task row is
  // what approval-tasks.json holds (never the call's arguments), the replica holding the call and
  // its lease, and the tool's result once it ran (a result carries no secret).
  `
  CREATE TABLE wallet_approvals (
    id text PRIMARY KEY,
    digest text NOT NULL,
    status text NOT NULL CHECK (status IN ('pending', 'approved', 'denied', 'used')),
    expires_at timestamptz NOT NULL,
    record jsonb NOT NULL
  );
  CREATE INDEX wallet_approvals_digest ON wallet_approvals (digest);
  CREATE TABLE wallet_approval_tasks (
    id text PRIMARY KEY,
    session text NOT NULL,
    approval text NOT NULL,
    state text NOT NULL CHECK (state IN ('working', 'running', 'completed', 'failed', 'cancelled')),
    updated_at timestamptz NOT NULL,
    record jsonb NOT NULL,
    replica text,
    lease_until timestamptz,
    result jsonb
  );
  CREATE INDEX wallet_approval_tasks_approval ON wallet_approval_tasks (approval);
  `,
  // 6: elicitation across replicas. The key every replica seals a form-elicitation question's
  // `requestState` with (made once by the first replica that asks; not a wallet secret: it signs
  // no payment), and the questions already answered yes, until their state expires: a yes is
  // accepted once, whichever replica its retry reaches.
  `
  CREATE TABLE wallet_elicitation_keys (
    name text PRIMARY KEY,
    key bytea NOT NULL CHECK (length(key) = 32),
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE wallet_elicitation_spent (
    id text PRIMARY KEY,
    expires_at timestamptz NOT NULL
  );
  CREATE INDEX wallet_elicitation_spent_expiry ON wallet_elicitation_spent (expires_at);
  `,
  // 7: a waiting task's call, sealed (AES-256-GCM under a key scrypt derives from the keystore
  // passphrase and the salt kept here: the store never holds it in clear), so that a replica
  // started again, or another, runs it on the owner's yes; cleared once the task stops waiting.
  `
  ALTER TABLE wallet_approval_tasks ADD COLUMN sealed_call bytea;
  CREATE TABLE wallet_task_call_salts (
    name text PRIMARY KEY,
    salt bytea NOT NULL CHECK (length(salt) = 32),
    created_at timestamptz NOT NULL DEFAULT now()
  );
  `,
];

/** The schema version this wallet needs. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** An arbitrary key of the advisory lock that serializes two migrations run at once. */
const MIGRATION_LOCK = 0x77616c6c;

/**
 * Applies the steps the store lacks, in one transaction under a lock (two replicas migrating at
 * once apply each step once); running it again changes nothing. Returns the versions applied.
 */
export async function migrate(pools: PgPools): Promise<{ from: number; to: number }> {
  return inTransaction(pools, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS wallet_schema (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const from = Number((await client.query('SELECT coalesce(max(version), 0) AS v FROM wallet_schema')).rows[0]?.v);
    for (let version = from + 1; version <= MIGRATIONS.length; version++) {
      await client.query(MIGRATIONS[version - 1] ?? '');
      await client.query('INSERT INTO wallet_schema (version) VALUES ($1)', [version]);
    }
    return { from, to: Math.max(from, MIGRATIONS.length) };
  });
}

/** The store's schema version: 0 before the first migration. */
export async function schemaVersion(pools: PgPools): Promise<number> {
  const rows = await query(
    pools,
    "SELECT CASE WHEN to_regclass('wallet_schema') IS NULL THEN 0 ELSE (SELECT coalesce(max(version), 0) FROM wallet_schema) END AS v",
  );
  return Number(rows[0]?.['v'] ?? 0);
}

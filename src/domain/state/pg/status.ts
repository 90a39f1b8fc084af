import type { StateLocation } from '../state-url.js';
import { closePools, openPools, query } from './client.js';
import { importDataDir, type ImportSummary } from './import.js';
import { migrate, schemaVersion, SCHEMA_VERSION } from './migrate.js';
import { recordPolicies, type StatedPolicy } from './policy.js';
import { checkSchema } from './store.js';

/** What `wallet state status` shows of a PostgreSQL store: public counts only, never a key. */
export type PgStatus = {
  backend: 'postgres';
  store: string;
  schema_version: number;
  schema_needed: number;
  ledger_entries_24h: number;
  audit_lines: number;
  nonce_reservations: number;
  /** Reserved and not yet broadcast: a payment under way, or one a stopped replica abandoned. */
  nonce_reservations_open: number;
  /** Marked broadcast and not in the sent log: what reconciliation settles against the chain. */
  nonce_reservations_unrecorded: number;
  /** Rows of the EVM sent log (`evm_txs_list`), every chain. */
  evm_sent: number;
  /** Dash coins held now by a payment (from coin selection to an hour past its broadcast). */
  coin_holds: number;
  keystore_wallets: number;
  keystore_imported_keys: number;
  passkeys: number;
  /** Approvals waiting for the owner, and MCP tasks open (working or running), of any replica. */
  approvals_pending: number;
  tasks_open: number;
  policies: string[];
};

/** The store's state, asked with one short-lived connection; unreachable: BUSY. */
export async function pgStatus(location: StateLocation): Promise<PgStatus> {
  const pools = await openPools(location);
  try {
    const version = await schemaVersion(pools);
    const count = async (sql: string): Promise<number> =>
      version === 0 ? 0 : Number((await query(pools, sql))[0]?.['n'] ?? 0);
    return {
      backend: 'postgres',
      store: pools.shown,
      schema_version: version,
      schema_needed: SCHEMA_VERSION,
      ledger_entries_24h: await count(
        'SELECT count(*) AS n FROM wallet_ledger_entries WHERE at_ms > (extract(epoch FROM now()) * 1000)::bigint - 86400000',
      ),
      audit_lines: await count('SELECT count(*) AS n FROM wallet_audit'),
      nonce_reservations: await count('SELECT count(*) AS n FROM wallet_evm_nonces'),
      nonce_reservations_open:
        version < 2 ? 0 : await count('SELECT count(*) AS n FROM wallet_evm_nonces WHERE broadcast_at IS NULL'),
      nonce_reservations_unrecorded:
        version < 4
          ? 0
          : await count(
              `SELECT count(*) AS n FROM wallet_evm_nonces n WHERE broadcast_at IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM wallet_evm_sent s WHERE s.chain_id = n.chain_id AND s.hash = n.hash)`,
            ),
      evm_sent: version < 4 ? 0 : await count('SELECT count(*) AS n FROM wallet_evm_sent'),
      coin_holds:
        version < 4 ? 0 : await count('SELECT count(*) AS n FROM wallet_coin_reservations WHERE expires_at > now()'),
      // Counts only: the keystore's rows are never shown (their secrets are sealed, but still).
      keystore_wallets: version < 3 ? 0 : await count('SELECT count(*) AS n FROM wallet_keystore_wallets'),
      keystore_imported_keys: version < 3 ? 0 : await count('SELECT count(*) AS n FROM wallet_keystore_keys'),
      passkeys: version < 3 ? 0 : await count('SELECT count(*) AS n FROM wallet_passkeys'),
      approvals_pending:
        version < 5
          ? 0
          : await count("SELECT count(*) AS n FROM wallet_approvals WHERE status = 'pending' AND expires_at > now()"),
      tasks_open:
        version < 5
          ? 0
          : await count("SELECT count(*) AS n FROM wallet_approval_tasks WHERE state IN ('working', 'running')"),
      policies:
        version === 0
          ? []
          : (await query(pools, 'SELECT key FROM wallet_policies ORDER BY key')).map((row) => String(row['key'])),
    };
  } finally {
    await closePools(pools);
  }
}

/** `wallet state migrate`: the schema steps the store lacks. */
export async function pgMigrate(location: StateLocation): Promise<{ from: number; to: number }> {
  const pools = await openPools(location);
  try {
    return await migrate(pools);
  } finally {
    await closePools(pools);
  }
}

/** `wallet state import`: a data directory's keystore, ledgers, audit lines, passkeys and sent logs into the store. */
export async function pgImport(location: StateLocation, dataDir: string): Promise<ImportSummary> {
  const pools = await openPools(location);
  try {
    await checkSchema(pools);
    return await importDataDir(pools, dataDir);
  } finally {
    await closePools(pools);
  }
}

/** `wallet state policy-record`: this config's policies become the store's. */
export async function pgRecordPolicies(location: StateLocation, stated: readonly StatedPolicy[]): Promise<number> {
  const pools = await openPools(location);
  try {
    await recordPolicies(pools, stated);
    return stated.length;
  } finally {
    await closePools(pools);
  }
}

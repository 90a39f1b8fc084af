import { auditLine, type AuditRecord } from '../../policy/audit-log.js';
import { query, type PgPools } from './client.js';

/**
 * Appends one audit line to `wallet_audit`, checked as a file line is ({@link auditLine}: no raw
 * argument, no secret). The table takes no UPDATE, DELETE or TRUNCATE (a trigger refuses them,
 * and the least-privilege role has no grant for them: docs/REPLICAS.md).
 */
export async function appendAudit(pools: PgPools, record: AuditRecord): Promise<void> {
  await query(pools, 'INSERT INTO wallet_audit (line) VALUES ($1::jsonb)', [JSON.stringify(auditLine(record))]);
}

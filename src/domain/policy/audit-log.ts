import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { ensurePrivateDir } from '../../shared/private-files.js';

export const AUDIT_LOG_FILE_NAME = 'audit.log';

/**
 * What one destructive call contributes to its audit line, from fields each tool names
 * explicitly: never a secret, never its raw arguments.
 */
export type AuditFields = {
  network?: string | undefined;
  /** The Dash wallet acting, by alias or fingerprint. */
  wallet_id?: string | undefined;
  /** The EVM account acting. */
  from?: string | undefined;
  /** In base units (`unit`), as a string of digits. */
  amount?: string | undefined;
  /** `token`: the base units of the ERC-20 `token`. */
  unit?: 'duffs' | 'wei' | 'token' | undefined;
  /** The ERC-20 contract a token amount is of (checksummed). */
  token?: string | undefined;
  recipient?: string | readonly string[] | null | undefined;
  /** A Dash transaction id. */
  txid?: string | undefined;
  /** An EVM transaction hash. */
  hash?: string | undefined;
  /** The most the fee can be (or what it was), in base units (`unit`). */
  fee?: string | undefined;
  /** A transaction signed and handed back, not broadcast (its outcome is `signed`). */
  signed_only?: boolean | undefined;
  /** The EIP-712 hash of signed typed data. */
  typed_data_hash?: string | undefined;
  dry_run?: boolean | undefined;
  /** Who stood behind a call that ran: the owner (a human said yes) or an agent within its autonomy. */
  authority?: 'owner' | 'agent' | undefined;
  /** The owner's approval it was asked for, or ran under (`ap-…`). */
  approval?: string | undefined;
};

/**
 * `sent` broadcast; `signed` signed and handed back; `dry_run` planned only; `asked` the user was
 * asked to confirm it (its outcome comes on a later line, or none when nobody answered); `ok` done
 * (a deletion, a typed-data signature); `error` refused or failed.
 */
export type AuditOutcome = 'sent' | 'signed' | 'dry_run' | 'asked' | 'ok' | 'error';

/** One line of the audit log. */
export type AuditRecord = AuditFields & {
  time: string;
  tool: string;
  outcome: AuditOutcome;
  error?: { code: string; message: string };
};

/** The key order of a line: when and what first, then the details. */
const KEY_ORDER: readonly (keyof AuditRecord)[] = [
  'time',
  'tool',
  'outcome',
  'network',
  'wallet_id',
  'from',
  'amount',
  'unit',
  'token',
  'recipient',
  'fee',
  'txid',
  'hash',
  'typed_data_hash',
  'dry_run',
  'authority',
  'approval',
  'error',
];

/**
 * Appends one JSON line to `<dataDir>/audit.log`: created owner-only (0600, in a 0700 folder),
 * opened for appending and written with one `write` per line, so lines from concurrent processes
 * never interleave and earlier lines are never rewritten. Fields left undefined are left out.
 */
export async function appendAuditRecord(dataDir: string, record: AuditRecord): Promise<void> {
  await ensurePrivateDir(dataDir);
  const path = auditLogPath(dataDir);
  const ordered: Record<string, unknown> = {};
  for (const key of KEY_ORDER) if (record[key] !== undefined) ordered[key] = record[key];
  const handle = await open(path, 'a', 0o600);
  try {
    // A log made looser by hand is made owner-only again.
    if (process.platform !== 'win32' && ((await handle.stat()).mode & 0o077) !== 0) await handle.chmod(0o600);
    await handle.write(`${JSON.stringify(ordered)}\n`);
    await handle.datasync();
  } finally {
    await handle.close();
  }
}

/** The path of the audit log in a data directory. */
export function auditLogPath(dataDir: string): string {
  return join(dataDir, AUDIT_LOG_FILE_NAME);
}

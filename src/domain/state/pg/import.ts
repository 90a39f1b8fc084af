import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PoolClient } from 'pg';
import { readPrivateText } from '../../../shared/private-files.js';
import { SentLog, type SentRecord } from '../../evm/sent-log.js';
import { hasSystemCode, WalletError } from '../../errors.js';
import type { ImportedKeyEntry } from '../../keystore/imported-keys.js';
import { KEYSTORE_DIR_NAME, RESTORE } from '../../keystore/keystore-format.js';
import { listImportedKeys, listWallets } from '../../keystore/listing.js';
import { EntrySchema, type EvmAccountRecord, type WalletEntry } from '../../keystore/wallet-record.js';
import type { Passkey } from '../../policy/passkey-record.js';
import { PasskeySchema } from '../../policy/passkey-record.js';
import { auditLogPath } from '../../policy/audit-log.js';
import { SpendLedger } from '../../policy/spend-ledger.js';
import { readPasskeysFile } from '../files/passkeys.js';
import { inTransaction, type PgPools } from './client.js';
import { KEYSTORE_LOCK } from './keystore.js';
import { PASSKEYS_LOCK } from './passkeys.js';

/** How many records of one kind an import added, merged into the store's, or found there already. */
type ImportCount = { imported: number; merged: number; unchanged: number };

/** What `wallet state import` did: counts only, never a key. */
export type ImportSummary = {
  from: string;
  store: string;
  wallets: ImportCount;
  imported_keys: ImportCount;
  ledger_entries: ImportCount;
  audit_lines: ImportCount;
  passkeys: ImportCount;
  /** The EVM sent log (`history/evm-<chain id>.json`), what evm_txs_list lists. */
  sent_transactions: ImportCount;
};

const LEDGER_FILE = /^(core|evm)-([a-z0-9][a-z0-9x-]*)\.json$/;
const SENT_LOG_FILE = /^evm-(0|[1-9][0-9]{0,15})\.json$/;

/**
 * Moves a data directory's keystore (wallets with their address indexes and EVM accounts,
 * imported keys), spend ledgers, audit lines, passkeys and EVM sent logs into the store, in one
 * transaction: all of it, or nothing. The files stay where they are. Idempotent: a record the store has already is
 * left alone (an audit line is added as many times as the file has it more than the store), and
 * records of one wallet or passkey that moved on separately are merged, never lowered: the higher
 * address index, the union of EVM accounts, the higher signature counter. A record that cannot be
 * merged (the same wallet sealed under another passphrase, an alias or address the store gives to
 * another, an unreadable file) refuses the whole import, naming it: nothing is lost, nothing is
 * overwritten.
 */
export async function importDataDir(pools: PgPools, dataDir: string): Promise<ImportSummary> {
  const keystoreDir = join(dataDir, KEYSTORE_DIR_NAME);
  const wallets = await listWallets(keystoreDir);
  const keys = await listImportedKeys(keystoreDir);
  const unreadable = [...wallets.unreadable, ...keys.unreadable];
  if (unreadable.length > 0) {
    throw new WalletError(
      'KEYSTORE_DAMAGED',
      `Cannot import the keystore: ${unreadable.join(', ')} cannot be read; nothing was imported.`,
      RESTORE,
    );
  }
  const ledgers = await readLedgers(dataDir);
  const audit = readAuditLines(dataDir);
  const passkeys = (await readPasskeysFile(join(dataDir, 'passkeys.json')))?.passkeys ?? [];
  const sent = await readSentLogs(dataDir);
  return inTransaction(pools, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [KEYSTORE_LOCK]);
    await client.query('SELECT pg_advisory_xact_lock($1)', [PASSKEYS_LOCK]);
    const conflicts: string[] = [];
    // The ledgers' rows before the wallets' rows, in the order a Dash payment takes them (its
    // ledger, then its wallet's row for the change index): neither waits for the other in a cycle.
    const ledgerEntries = await importLedgers(client, ledgers);
    const summary: ImportSummary = {
      from: dataDir,
      store: pools.shown,
      wallets: await importWallets(client, wallets.entries, conflicts),
      imported_keys: await importKeys(client, keys.keys, conflicts),
      ledger_entries: ledgerEntries,
      audit_lines: await importAudit(client, audit),
      passkeys: await importPasskeys(client, passkeys, conflicts),
      sent_transactions: await importSent(client, sent),
    };
    if (conflicts.length > 0) {
      throw new WalletError(
        'INVALID_PARAM',
        `The state store ${pools.shown} holds records that differ from ${dataDir}'s: ${conflicts.slice(0, 5).join('; ')}${conflicts.length > 5 ? ` (and ${conflicts.length - 5} more)` : ''}. Nothing was imported.`,
        {
          hint: 'Nothing is overwritten: import into an empty store, or remove the differing records from one side first (docs/REPLICAS.md).',
        },
      );
    }
    return summary;
  });
}

const counted = (): ImportCount => ({ imported: 0, merged: 0, unchanged: 0 });
/** Whether two records are equal, whatever the order of their keys (jsonb keeps its own). */
const same = (a: unknown, b: unknown): boolean => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, each]) => each !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, each]) => [key, canonical(each)]),
  );
}

async function importWallets(
  client: PoolClient,
  entries: readonly WalletEntry[],
  conflicts: string[],
): Promise<ImportCount> {
  const count = counted();
  // Held until the import commits: a replica handing out an address meanwhile (which holds only
  // its wallet's row, not the keystore's lock) waits, and the merge never writes back an index
  // lower than the one it raised.
  const rows = await client.query('SELECT record FROM wallet_keystore_wallets FOR UPDATE');
  const stored = (rows.rows as { record: unknown }[]).flatMap((row) => {
    const parsed = EntrySchema.safeParse(row.record);
    return parsed.success ? [parsed.data] : [];
  });
  const keyRows = await client.query('SELECT address, alias FROM wallet_keystore_keys');
  const keyAddresses = new Set((keyRows.rows as { address: string }[]).map((row) => row.address));
  const keyAliases = new Set((keyRows.rows as { alias: string | null }[]).flatMap((row) => row.alias ?? []));
  for (const entry of entries) {
    const name = `wallet '${entry.alias}' (${entry.id} on ${entry.network})`;
    const mine = stored.find((other) => other.id === entry.id && other.network === entry.network);
    const others = stored.filter((other) => other !== mine);
    if (others.some((other) => other.alias === entry.alias)) {
      conflicts.push(`${name}: another wallet of the store has its alias`);
      continue;
    }
    const taken = (entry.evm?.accounts ?? []).find(
      (account) =>
        keyAddresses.has(account.address.toLowerCase()) ||
        (account.alias !== null && keyAliases.has(account.alias)) ||
        others.some((other) =>
          (other.evm?.accounts ?? []).some(
            (theirs) =>
              theirs.address.toLowerCase() === account.address.toLowerCase() ||
              (account.alias !== null && theirs.alias === account.alias),
          ),
        ),
    );
    if (taken) {
      conflicts.push(`${name}: the store gives EVM account ${taken.address} or its alias to another holder`);
      continue;
    }
    if (!mine) {
      await client.query(
        'INSERT INTO wallet_keystore_wallets (id, network, alias, record) VALUES ($1, $2, $3, $4::jsonb)',
        [entry.id, entry.network, entry.alias, JSON.stringify(entry)],
      );
      stored.push(entry);
      count.imported++;
      continue;
    }
    const merged = mergeWallets(mine, entry);
    if (merged === undefined) {
      conflicts.push(`${name}: the store's record is sealed or derived differently (another passphrase?)`);
      continue;
    }
    if (same(merged, mine)) {
      count.unchanged++;
      continue;
    }
    await client.query(
      'UPDATE wallet_keystore_wallets SET record = $3::jsonb, updated_at = now() WHERE id = $1 AND network = $2',
      [entry.id, entry.network, JSON.stringify(merged)],
    );
    count.merged++;
  }
  return count;
}

/**
 * The store's record of a wallet with the file's merged in, or undefined when they are not the
 * same wallet sealed the same way: the higher of each next index, the EVM accounts of both.
 */
function mergeWallets(stored: WalletEntry, file: WalletEntry): WalletEntry | undefined {
  const fixed = (entry: WalletEntry) => [
    entry.alias,
    entry.created_at,
    entry.account.index,
    entry.account.path,
    entry.account.xpub,
    entry.crypto,
  ];
  if (!same(fixed(stored), fixed(file))) return undefined;
  let evm = stored.evm ?? file.evm;
  if (stored.evm && file.evm) {
    if (stored.evm.xpub !== file.evm.xpub) return undefined;
    const accounts: EvmAccountRecord[] = [...stored.evm.accounts];
    for (const account of file.evm.accounts) {
      const at = accounts.find((other) => other.index === account.index);
      if (at === undefined) accounts.push(account);
      else if (!same(at, account)) return undefined;
    }
    accounts.sort((a, b) => a.index - b.index);
    evm = { xpub: stored.evm.xpub, accounts };
  }
  return {
    ...stored,
    account: {
      ...stored.account,
      next_receive: Math.max(stored.account.next_receive, file.account.next_receive),
      next_change: Math.max(stored.account.next_change, file.account.next_change),
    },
    ...(evm === undefined ? {} : { evm }),
  };
}

async function importKeys(
  client: PoolClient,
  keys: readonly ImportedKeyEntry[],
  conflicts: string[],
): Promise<ImportCount> {
  const count = counted();
  const walletRows = await client.query('SELECT record FROM wallet_keystore_wallets');
  const walletAccounts = (walletRows.rows as { record: unknown }[]).flatMap((row) => {
    const parsed = EntrySchema.safeParse(row.record);
    return parsed.success ? (parsed.data.evm?.accounts ?? []) : [];
  });
  for (const key of keys) {
    const address = key.address.toLowerCase();
    const name = `imported key ${key.address}`;
    const rows = await client.query('SELECT record FROM wallet_keystore_keys WHERE address = $1', [address]);
    const row = rows.rows[0] as { record: unknown } | undefined;
    if (row) {
      if (same(row.record, key)) count.unchanged++;
      else conflicts.push(`${name}: the store's record differs (another passphrase?)`);
      continue;
    }
    const aliasTaken =
      key.alias !== null &&
      ((await client.query('SELECT 1 FROM wallet_keystore_keys WHERE alias = $1', [key.alias])).rowCount ?? 0) > 0;
    const held = walletAccounts.some(
      (account) => account.address.toLowerCase() === address || (key.alias !== null && account.alias === key.alias),
    );
    if (aliasTaken || held) {
      conflicts.push(`${name}: the store gives its address or alias to another holder`);
      continue;
    }
    await client.query('INSERT INTO wallet_keystore_keys (address, alias, record) VALUES ($1, $2, $3::jsonb)', [
      address,
      key.alias,
      JSON.stringify(key),
    ]);
    count.imported++;
  }
  return count;
}

type FileLedger = { chain: 'core' | 'evm'; network: string; entries: Awaited<ReturnType<SpendLedger['recent']>> };

/** Every spend ledger of the data directory (`ledger/<chain>-<scope>.json`), each read and checked as the wallet reads it. */
async function readLedgers(dataDir: string): Promise<FileLedger[]> {
  let names: string[];
  try {
    names = readdirSync(join(dataDir, 'ledger'));
  } catch (error) {
    if (hasSystemCode(error, 'ENOENT')) return [];
    throw error;
  }
  const ledgers: FileLedger[] = [];
  for (const name of names.sort()) {
    const match = LEDGER_FILE.exec(name);
    if (!match) continue;
    const chain = match[1] === 'core' ? 'core' : 'evm';
    const network = match[2] ?? '';
    // Every entry the file holds (an entry past the window is history in the store, as there).
    ledgers.push({ chain, network, entries: await new SpendLedger(dataDir, chain, network).recent(0) });
  }
  return ledgers;
}

async function importLedgers(client: PoolClient, ledgers: readonly FileLedger[]): Promise<ImportCount> {
  const count = counted();
  for (const { chain, network, entries } of ledgers) {
    const name = `${chain}-${network}`;
    await client.query('INSERT INTO wallet_ledgers (name, chain) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
      name,
      chain,
    ]);
    // Held as a payment holds it: a replica checking this cap meanwhile waits for the import.
    await client.query('SELECT name FROM wallet_ledgers WHERE name = $1 FOR UPDATE', [name]);
    for (const entry of entries) {
      const inserted = await client.query(
        `INSERT INTO wallet_ledger_entries (ledger, key, txid, amount, at_ms, by_whom)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (ledger, key) DO NOTHING`,
        [name, entry.key, entry.txid, entry.amount.toString(), entry.time, entry.by ?? 'owner'],
      );
      if ((inserted.rowCount ?? 0) > 0) count.imported++;
      else count.unchanged++;
    }
  }
  return count;
}

/** Every EVM sent log of the data directory (`history/evm-<chain id>.json`), each read and checked as the wallet reads it. */
async function readSentLogs(dataDir: string): Promise<{ chainId: number; records: SentRecord[] }[]> {
  let names: string[];
  try {
    names = readdirSync(join(dataDir, 'history'));
  } catch (error) {
    if (hasSystemCode(error, 'ENOENT')) return [];
    throw error;
  }
  const logs: { chainId: number; records: SentRecord[] }[] = [];
  for (const name of names.sort()) {
    const chainId = Number(SENT_LOG_FILE.exec(name)?.[1] ?? Number.NaN);
    if (!Number.isSafeInteger(chainId)) continue;
    logs.push({ chainId, records: await new SentLog(dataDir, chainId).records() });
  }
  return logs;
}

/** The sent transactions the store lacks (one row per chain and hash, as a broadcast writes it), oldest first. */
async function importSent(
  client: PoolClient,
  logs: readonly { chainId: number; records: readonly SentRecord[] }[],
): Promise<ImportCount> {
  const count = counted();
  for (const { chainId, records } of logs) {
    for (const record of records) {
      const inserted = await client.query(
        `INSERT INTO wallet_evm_sent (chain_id, hash, from_address, record) VALUES ($1, $2, $3, $4::jsonb)
         ON CONFLICT (chain_id, hash) DO NOTHING`,
        [chainId, record.hash, record.from.toLowerCase(), JSON.stringify(record)],
      );
      if ((inserted.rowCount ?? 0) > 0) count.imported++;
      else count.unchanged++;
    }
  }
  return count;
}

/** The audit log's lines, each a JSON object; a line that is not one refuses the import (it would be lost). */
function readAuditLines(dataDir: string): string[] {
  const path = auditLogPath(dataDir);
  let text: string;
  try {
    text = readPrivateText(path);
  } catch (error) {
    if (hasSystemCode(error, 'ENOENT')) return [];
    throw new WalletError('INVALID_PARAM', `Cannot read the audit log ${path}; nothing was imported.`, {
      hint: 'It must be an owner-only file of this user.',
      cause: error,
    });
  }
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  lines.forEach((line, index) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new WalletError(
        'INVALID_PARAM',
        `Line ${index + 1} of the audit log ${path} is not a JSON object; nothing was imported.`,
        { hint: 'Repair that line (or move it aside) and import again.' },
      );
    }
  });
  return lines;
}

/**
 * Appends the file's audit lines the store lacks: each distinct line as many times as the file
 * has it more than the store (so running it again adds nothing), in the file's order, dated by
 * its `time`.
 */
async function importAudit(client: PoolClient, lines: readonly string[]): Promise<ImportCount> {
  await client.query('CREATE TEMP TABLE wallet_import_audit (n integer, line jsonb) ON COMMIT DROP');
  for (let start = 0; start < lines.length; start += 500) {
    const chunk = lines.slice(start, start + 500);
    await client.query(
      'INSERT INTO wallet_import_audit (n, line) SELECT n + $1, line::jsonb FROM unnest($2::text[]) WITH ORDINALITY AS t(line, n)',
      [start, chunk],
    );
  }
  const inserted = await client.query(
    `INSERT INTO wallet_audit (at, line)
     SELECT CASE WHEN f.line->>'time' ~ '^\\d{4}-\\d\\d-\\d\\dT' THEN (f.line->>'time')::timestamptz ELSE now() END, f.line
     FROM (SELECT n, line, row_number() OVER (PARTITION BY line ORDER BY n) AS k FROM wallet_import_audit) f
     LEFT JOIN (SELECT line, count(*) AS c FROM wallet_audit GROUP BY line) have ON have.line = f.line
     WHERE f.k > coalesce(have.c, 0)
     ORDER BY f.n`,
  );
  const imported = inserted.rowCount ?? 0;
  return { imported, merged: 0, unchanged: lines.length - imported };
}

async function importPasskeys(
  client: PoolClient,
  passkeys: readonly Passkey[],
  conflicts: string[],
): Promise<ImportCount> {
  const count = counted();
  for (const passkey of passkeys) {
    const rows = await client.query('SELECT record FROM wallet_passkeys WHERE id = $1', [passkey.id]);
    const row = rows.rows[0] as { record: unknown } | undefined;
    if (!row) {
      const named = await client.query('SELECT 1 FROM wallet_passkeys WHERE name = $1', [passkey.name]);
      if ((named.rowCount ?? 0) > 0) {
        conflicts.push(`passkey '${passkey.name}': the store has another passkey of that name`);
        continue;
      }
      await client.query('INSERT INTO wallet_passkeys (id, name, record) VALUES ($1, $2, $3::jsonb)', [
        passkey.id,
        passkey.name,
        JSON.stringify(passkey),
      ]);
      count.imported++;
      continue;
    }
    const stored = PasskeySchema.safeParse(row.record);
    if (
      !stored.success ||
      stored.data.name !== passkey.name ||
      stored.data.public_key !== passkey.public_key ||
      stored.data.created !== passkey.created
    ) {
      conflicts.push(`passkey '${passkey.name}': the store's record of that credential differs`);
      continue;
    }
    // The higher counter wins: an assertion seen on either side is never accepted again.
    if (passkey.counter <= stored.data.counter) {
      count.unchanged++;
      continue;
    }
    const merged: Passkey = {
      ...stored.data,
      counter: passkey.counter,
      last_used: passkey.last_used ?? stored.data.last_used,
    };
    await client.query('UPDATE wallet_passkeys SET record = $2::jsonb WHERE id = $1', [
      passkey.id,
      JSON.stringify(PasskeySchema.parse(merged)),
    ]);
    count.merged++;
  }
  return count;
}

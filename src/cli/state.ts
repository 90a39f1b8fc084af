import { parseFlags, type CliFlag } from './global-flags.js';
import type { CliIo } from './io.js';
import { asOwnerVerb } from './owner-errors.js';
import { closestNames } from './suggest.js';
import { rejectUnknownFlags } from './unknown-flags.js';
import { EXIT, UsageError } from './usage-error.js';

/** The subcommands of `wallet state`, for help and completion. */
export const STATE_SUBCOMMANDS = ['status', 'migrate', 'policy-record', 'import'] as const;
type Subcommand = (typeof STATE_SUBCOMMANDS)[number];

export const STATE_SUMMARIES: Readonly<Record<Subcommand, string>> = {
  status: 'Where the shared state lives, its schema version and counts',
  migrate: 'Create or update the state store schema (versioned, idempotent)',
  'policy-record': "Make this config.json's policies the ones every replica must have",
  import: "Copy this data directory's keystore, ledgers, audit lines and passkeys into the store",
};

/** Every flag `wallet state …` takes. */
export const STATE_FLAGS: readonly CliFlag[] = [
  { name: 'json', type: 'boolean', description: 'Print the result as JSON.' },
  { name: 'debug', type: 'boolean', description: 'Show error causes and stack traces.' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'Show help.' },
];

const HELP = `wallet state — the state replicas share (docs/REPLICAS.md).

Usage:
  wallet state [status] [--json]   the backend (files or PostgreSQL), schema version, counts
  wallet state migrate             create or update the store's schema; running it again changes nothing
  wallet state policy-record       record this config.json's policies as the store's (after changing
                                   them on purpose on every replica)
  wallet state import              copy this data directory's keystore (wallets, address indexes,
                                   EVM accounts, imported keys), spend ledgers, audit lines,
                                   passkeys and EVM sent logs into the store; the files stay. Running
                                   it again imports nothing twice; a record the store holds
                                   differently (another passphrase, an alias taken) refuses it all

The store is PostgreSQL when WALLET_STATE_URL (or state.url in config.json) is a postgres:// URL;
its password comes from PGPASSWORD, a PGPASSFILE, or the owner-only file state.password_file
names, never from the URL. Without one, the state is the data directory's files. An unreachable
store is BUSY (exit 5).
`;

/** `wallet state …`: the owner's view and upkeep of the state store. */
export async function runState(argv: readonly string[], io: CliIo, dataDir: string): Promise<number> {
  const parsed = parseFlags(argv, STATE_FLAGS);
  const positionals = ((parsed['_'] as unknown[] | undefined) ?? []).map(String);
  const [word = 'status', ...words] = positionals.slice(positionals.indexOf('state') + 1);
  if (parsed['help'] === true || word === 'help') {
    io.stdout.write(HELP);
    return EXIT.ok;
  }
  const subcommand = STATE_SUBCOMMANDS.find((candidate) => candidate === word);
  if (subcommand === undefined) {
    const near = closestNames(word, STATE_SUBCOMMANDS);
    throw new UsageError(
      `Unknown subcommand 'state ${word}'.`,
      near.length > 0 ? `Did you mean 'state ${near.join("' or 'state ")}'?` : "See 'wallet state --help'.",
    );
  }
  rejectUnknownFlags({ ...parsed, _: [] }, STATE_FLAGS, `state ${subcommand}`);
  if (words.length > 0) throw new UsageError(`state ${subcommand} takes no words.`);
  const json = parsed['json'] === true;
  const print = (value: Record<string, unknown>, text: string): void => {
    io.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : text);
  };
  // Loaded only here (node-postgres only when a store is set): completion reads this module's tables.
  const verbs = await import('../domain/state/owner-verbs.js');
  const context = { dataDir, env: io.env };
  if (subcommand === 'status') {
    const status = await asOwnerVerb(() => verbs.stateStatus(context));
    if (status.backend === 'files') {
      print(status, `state: the data directory's files, ${status.store}\n`);
      return EXIT.ok;
    }
    print(
      status,
      [
        `state: PostgreSQL ${status.store}`,
        `schema: version ${status.schema_version} (this wallet needs ${status.schema_needed})`,
        `ledger entries (24 h): ${status.ledger_entries_24h}`,
        `audit lines: ${status.audit_lines}`,
        `nonce reservations: ${status.nonce_reservations} (${status.nonce_reservations_open} not broadcast yet, ${status.nonce_reservations_unrecorded} broadcast and not in the sent log)`,
        `EVM sent log: ${status.evm_sent} transactions`,
        `Dash coins held: ${status.coin_holds}`,
        `keystore: ${status.keystore_wallets} wallets, ${status.keystore_imported_keys} imported keys`,
        `passkeys: ${status.passkeys}`,
        `approvals pending: ${status.approvals_pending}; tasks open: ${status.tasks_open}`,
        `policies recorded: ${status.policies.length === 0 ? 'none' : status.policies.join(', ')}`,
        '',
      ].join('\n'),
    );
    return EXIT.ok;
  }
  const noStore = new UsageError(
    `state ${subcommand} needs a state store, and none is set.`,
    'Set WALLET_STATE_URL (or state.url in config.json) to a postgres:// URL; see docs/REPLICAS.md.',
  );
  if (subcommand === 'migrate') {
    const migrated = await asOwnerVerb(() => verbs.stateMigrate(context));
    if (!migrated) throw noStore;
    const { store, from, to } = migrated;
    print(
      migrated,
      from === to
        ? `The state store ${store} is at schema version ${to}: nothing to do.\n`
        : `The state store ${store} migrated from schema version ${from} to ${to}.\n`,
    );
    return EXIT.ok;
  }
  if (subcommand === 'import') {
    const summary = await asOwnerVerb(() => verbs.stateImport(context));
    if (!summary) throw noStore;
    const line = (what: string, count: { imported: number; merged: number; unchanged: number }): string =>
      `${what}: ${count.imported} imported, ${count.merged} merged, ${count.unchanged} already there`;
    print(
      { ...summary, files_left_in_place: true },
      [
        `Imported ${summary.from} into the state store ${summary.store}:`,
        line('  wallets', summary.wallets),
        line('  imported keys', summary.imported_keys),
        line('  ledger entries', summary.ledger_entries),
        line('  audit lines', summary.audit_lines),
        line('  passkeys', summary.passkeys),
        line('  sent transactions', summary.sent_transactions),
        `The files are left in place; with WALLET_STATE_URL set the wallet reads and writes the store, not them.`,
        '',
      ].join('\n'),
    );
    return EXIT.ok;
  }
  const recorded = await asOwnerVerb(() => verbs.statePolicyRecord(context));
  if (!recorded) throw noStore;
  const count = recorded.policies.length;
  print(
    recorded,
    `Recorded ${count} ${count === 1 ? 'policy' : 'policies'} in ${recorded.store}: every replica must now have them.\n`,
  );
  return EXIT.ok;
}

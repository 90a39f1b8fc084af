import { readConfigFile } from '../config/config-file.js';
import { statedPolicies, WalletServices } from '../services.js';
import type { ImportSummary } from './pg/import.js';
import type { PgStatus } from './pg/status.js';
import type { StateLocation } from './state-url.js';

/**
 * The owner's verbs on the state store (`wallet state …`), for the CLI: each resolves the store
 * as a server would (WALLET_STATE_URL, config `state.url`), and loads node-postgres only when one
 * is set. Their refusals are WalletErrors: unreachable BUSY, a schema it cannot use BACKEND_INVALID.
 */
export type StateVerbContext = { dataDir: string; env: Readonly<Record<string, string | undefined>> };

function locationOf(context: StateVerbContext): Promise<StateLocation | undefined> {
  return new WalletServices({ dataDir: context.dataDir, env: context.env }).stateLocation();
}

/** `wallet state status`: the files, or the store's version and counts. */
export async function stateStatus(context: StateVerbContext): Promise<{ backend: 'files'; store: string } | PgStatus> {
  const location = await locationOf(context);
  if (!location) return { backend: 'files', store: context.dataDir };
  return (await import('./pg/status.js')).pgStatus(location);
}

/** `wallet state migrate`; undefined when no store is set. */
export async function stateMigrate(
  context: StateVerbContext,
): Promise<{ store: string; from: number; to: number } | undefined> {
  const location = await locationOf(context);
  if (!location) return undefined;
  return { store: location.shown, ...(await (await import('./pg/status.js')).pgMigrate(location)) };
}

/** `wallet state policy-record`; undefined when no store is set. */
export async function statePolicyRecord(
  context: StateVerbContext,
): Promise<{ store: string; policies: string[] } | undefined> {
  const location = await locationOf(context);
  if (!location) return undefined;
  const stated = statedPolicies(await readConfigFile(context.dataDir));
  await (await import('./pg/status.js')).pgRecordPolicies(location, stated);
  return { store: location.shown, policies: stated.map((entry) => entry.key) };
}

/**
 * `wallet state import`: the data directory's keystore, spend ledgers, audit lines, passkeys and
 * EVM sent logs copied into the store (its files stay); undefined when no store is set.
 */
export async function stateImport(context: StateVerbContext): Promise<ImportSummary | undefined> {
  const location = await locationOf(context);
  if (!location) return undefined;
  return (await import('./pg/status.js')).pgImport(location, context.dataDir);
}

/**
 * Opens the state store for an owner's command (`wallet approvals …`) when one is set, so that
 * what it is handed the data directory for (the passkeys, the approval page) reads and writes the
 * store every replica shares. Returns what closes it.
 */
export async function openSharedState(context: StateVerbContext): Promise<() => Promise<void>> {
  if ((await locationOf(context)) === undefined) return () => Promise.resolve();
  const services = new WalletServices({ dataDir: context.dataDir, env: context.env });
  await services.openSharedState();
  return () => services.closeState();
}

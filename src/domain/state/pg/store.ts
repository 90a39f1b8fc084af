import { WalletError } from '../../errors.js';
import type { StateLocation } from '../state-url.js';
import type { StateStore } from '../store.js';
import { PgApprovals } from './approvals.js';
import { appendAudit } from './audit.js';
import { closePools, openPools, type PgPools } from './client.js';
import { PgSpendLedger } from './ledger.js';
import { schemaVersion, SCHEMA_VERSION } from './migrate.js';
import { PgKeystore } from './keystore.js';
import { chainsToReconcile, reconcileChain, withAccount } from './nonces.js';
import { PgPasskeys } from './passkeys.js';
import { checkPolicies, type StatedPolicy } from './policy.js';
import { PgSentLog } from './sent-log.js';
import { PgTasks } from './tasks.js';
import { pgCoinReservations } from './coins.js';
import { pgQuestions } from './questions.js';

/**
 * Opens the PostgreSQL state store: its schema must be this wallet's version (else `wallet state
 * migrate`), and this replica's policies those the store recorded ({@link checkPolicies}).
 * Unreachable: BUSY.
 */
export async function openPgStore(
  location: StateLocation,
  policies: readonly StatedPolicy[],
  dataDir: string,
): Promise<StateStore> {
  const pools = await openPools(location);
  const passkeys = new PgPasskeys(pools);
  try {
    await checkSchema(pools);
    await checkPolicies(pools, policies);
    await passkeys.start();
  } catch (error) {
    passkeys.stop();
    await closePools(pools);
    throw error;
  }
  return {
    kind: 'postgres',
    shown: pools.shown,
    ledger: (chain, name) => new PgSpendLedger(pools, chain, name),
    keystore: new PgKeystore(pools, dataDir),
    passkeys,
    approvals: new PgApprovals(pools, passkeys),
    tasks: new PgTasks(pools),
    appendAudit: (record) => appendAudit(pools, record),
    coins: pgCoinReservations(pools),
    questions: pgQuestions(pools),
    sentLog: (chainId) => new PgSentLog(pools, chainId),
    withAccount: (chainId, address, task) => withAccount(pools, chainId, address, task),
    toReconcile: () => chainsToReconcile(pools),
    reconcile: (chainId, judge, mined) => reconcileChain(pools, chainId, judge, mined),
    close: () => {
      passkeys.stop();
      return closePools(pools);
    },
  };
}

/** Refuses a store whose schema is not this wallet's version (BACKEND_INVALID: migrate, or upgrade). */
export async function checkSchema(pools: PgPools): Promise<void> {
  const version = await schemaVersion(pools);
  if (version !== SCHEMA_VERSION) {
    throw new WalletError(
      'BACKEND_INVALID',
      `The state store ${pools.shown} has schema version ${version}; this wallet needs ${SCHEMA_VERSION}.`,
      {
        hint:
          version < SCHEMA_VERSION
            ? 'Run `wallet state migrate` once, with the same WALLET_STATE_URL.'
            : 'A newer wallet migrated the store: run that version on every replica.',
      },
    );
  }
}

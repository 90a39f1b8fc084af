import { SentLog } from '../../evm/sent-log.js';
import { Keystore } from '../../keystore/keystore.js';
import { appendAuditRecord } from '../../policy/audit-log.js';
import { SpendLedger } from '../../policy/spend-ledger.js';
import type { StateStore } from '../store.js';
import { fileApprovals } from './approvals.js';
import { fileKeystore } from './keystore.js';
import { filePasskeys } from './passkeys.js';
import { fileTasks } from './tasks.js';

/**
 * The embedded state store: the data directory's files, exactly as before there was a choice (the
 * spend ledgers, audit.log, the per-account lock files). Nothing to set up; one machine.
 */
export function fileStateStore(dataDir: string): StateStore {
  return {
    kind: 'files',
    shown: dataDir,
    ledger: (chain, name) => new SpendLedger(dataDir, chain, name),
    keystore: fileKeystore(dataDir),
    passkeys: filePasskeys(dataDir),
    approvals: fileApprovals(dataDir),
    tasks: fileTasks(dataDir),
    appendAudit: (record) => appendAuditRecord(dataDir, record),
    coins: undefined,
    questions: undefined,
    sentLog: (chainId) => new SentLog(dataDir, chainId),
    // The keystore's account lock, across processes of this machine: the node's pending count is the nonce.
    withAccount: (_chainId, address, task) => new Keystore(dataDir).withAccountLock(address, () => task(undefined)),
    // No reservations: the node's pending count is the nonce, and a ledger entry counts 24 hours.
    toReconcile: () => Promise.resolve([]),
    reconcile: () => Promise.resolve({ committed: [], released: [] }),
    close: () => Promise.resolve(),
  };
}

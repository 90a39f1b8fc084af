import { join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir, writeFileAtomic } from '../../../shared/private-files.js';
import { WalletError } from '../../errors.js';
import { withNamedLock } from '../../keystore/lock.js';
import {
  ApprovalSchema,
  forgottenApproval,
  type Approval,
  type ApprovalRecords,
} from '../../policy/approval-record.js';
import { filePasskeys } from './passkeys.js';
import { readStateFile } from '../../policy/state-file.js';

const APPROVALS_FILE_NAME = 'approvals.json';
const FORMAT = 'wallet-approvals';
const VERSION = 1;

const ApprovalsFileSchema = z.strictObject({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  approvals: z.array(ApprovalSchema),
});

/**
 * The approvals in the data directory: `<dataDir>/approvals.json` (0600, replaced atomically,
 * changed under a cross-process lock), so `wallet serve` and `wallet approvals` in another
 * terminal share it and it survives a restart. A damaged file approves nothing.
 */
export function fileApprovals(dataDir: string): ApprovalRecords {
  const path = join(dataDir, APPROVALS_FILE_NAME);
  const read = async (): Promise<Approval[]> => {
    const file = await readStateFile(
      path,
      ApprovalsFileSchema,
      `a ${FORMAT} file of version ${VERSION}`,
      (reason, cause) =>
        // Every call that needs an approval is refused until it is fixed.
        new WalletError('POLICY_VIOLATION', `The approvals file ${path} is damaged (${reason}).`, {
          hint: 'Delete it: pending approvals are then asked again; nothing approved is lost but unused yeses.',
          cause,
        }),
    );
    return file?.approvals ?? [];
  };
  return {
    path,
    read: async () => ({ approvals: await read(), now: Date.now() }),
    change: async (update) => {
      ensurePrivateDir(dataDir);
      return withNamedLock(dataDir, 'approvals', async () => {
        const now = Date.now();
        const all = await read();
        const kept = all.filter((approval) => !forgottenApproval(approval, now));
        const { approvals, result } = update(kept, now);
        if (approvals !== kept || kept.length !== all.length) {
          writeFileAtomic(path, `${JSON.stringify({ format: FORMAT, version: VERSION, approvals }, null, 2)}\n`);
        }
        return result;
      });
    },
    passkeyEnrolled: () => filePasskeys(dataDir).enrolledNow(),
    passkeyEnrolledCached: () => filePasskeys(dataDir).enrolled(),
  };
}

import { join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir, writeFileAtomic } from '../../../shared/private-files.js';
import { WalletError } from '../../errors.js';
import { withNamedLock } from '../../keystore/lock.js';
import { readStateFile } from '../../policy/state-file.js';
import { ApprovalTaskSchema, forgottenTask, type ApprovalTask, type TaskRecords } from '../../policy/task-record.js';

const TASKS_FILE_NAME = 'approval-tasks.json';
const FORMAT = 'wallet-approval-tasks';
const VERSION = 2;

const TasksFileSchema = z.strictObject({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  tasks: z.array(ApprovalTaskSchema),
});

/**
 * A version 1 file (it kept arguments and results): read as no tasks, and replaced at the next
 * change, so what it held leaves the disk. Its calls' approvals stand: a repeated call finds them.
 */
const OldTasksFileSchema = z.looseObject({ format: z.literal(FORMAT), version: z.literal(1) });

/**
 * The MCP tasks in the data directory: `<dataDir>/approval-tasks.json`, next to the approvals
 * (0600, replaced atomically, changed under a cross-process lock). No result is kept here: it
 * stays in the memory of the process that ran the call.
 */
export function fileTasks(dataDir: string): TaskRecords {
  const path = join(dataDir, TASKS_FILE_NAME);
  const read = async (): Promise<{ tasks: ApprovalTask[]; old: boolean }> => {
    const file = await readStateFile(
      path,
      z.union([TasksFileSchema, OldTasksFileSchema]),
      `a ${FORMAT} file of version ${VERSION}`,
      (reason, cause) =>
        new WalletError('POLICY_VIOLATION', `The approval tasks file ${path} is damaged (${reason}).`, {
          hint: 'Delete it: the calls waiting as tasks are then asked again; no approval is lost.',
          cause,
        }),
    );
    return {
      tasks: file?.version === VERSION ? file.tasks : [],
      old: file !== undefined && file.version !== VERSION,
    };
  };
  return {
    path,
    replica: undefined,
    read: async () => ({ tasks: (await read()).tasks, now: Date.now() }),
    change: async (update) => {
      ensurePrivateDir(dataDir);
      return withNamedLock(dataDir, 'approval-tasks', async () => {
        const now = Date.now();
        const { tasks: all, old } = await read();
        const kept = all.filter((task) => !forgottenTask(task, now));
        const { tasks, result } = await update(kept, now);
        if (tasks !== kept || kept.length !== all.length || old) {
          writeFileAtomic(path, `${JSON.stringify({ format: FORMAT, version: VERSION, tasks }, null, 2)}\n`);
        }
        return result;
      });
    },
    keepResult: () => Promise.resolve(),
    result: () => Promise.resolve(undefined),
    renew: () => Promise.resolve(),
  };
}

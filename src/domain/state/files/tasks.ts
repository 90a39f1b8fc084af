import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir, writeFileAtomic } from '../../../shared/private-files.js';
import { WalletError } from '../../errors.js';
import { withNamedLock } from '../../keystore/lock.js';
import { readStateFile } from '../../policy/state-file.js';
import {
  ApprovalTaskSchema,
  forgottenTask,
  StoredCallSchema,
  type ApprovalTask,
  type StoredCall,
  type TaskRecords,
} from '../../policy/task-record.js';

const TASKS_FILE_NAME = 'approval-tasks.json';
const FORMAT = 'wallet-approval-tasks';
const VERSION = 2;

/** The calls and results of the tasks, beside the tasks file (0600): what may hold a secret. */
const CALLS_FILE_NAME = 'approval-task-calls.json';
const CALLS_FORMAT = 'wallet-approval-task-calls';
const CALLS_VERSION = 1;

/**
 * How long a waiting task's call is kept at most: an approval waits 15 minutes, and a yes leaves
 * its call 15 more to come back (src/domain/policy/approvals.ts); past that it cannot run.
 */
const CALL_KEPT_MS = 30 * 60_000;

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

const CallsFileSchema = z.strictObject({
  format: z.literal(CALLS_FORMAT),
  version: z.literal(CALLS_VERSION),
  /** The calls of the tasks that wait, by task id. */
  calls: z.record(z.string(), StoredCallSchema),
  /** The results of the runs, by task id, while their task is kept. */
  results: z.record(z.string(), z.record(z.string(), z.unknown())),
});
type CallsFile = z.infer<typeof CallsFileSchema>;

/**
 * The MCP tasks in the data directory: `<dataDir>/approval-tasks.json`, next to the approvals
 * (0600, replaced atomically, changed under a cross-process lock), and beside it
 * `approval-task-calls.json` (0600 too, changed under the same lock): the call of each task that
 * waits, so that a restarted `serve` runs it on the owner's yes, and the result of each run until
 * its task is forgotten. A call leaves that file as soon as its task no longer waits.
 */
export function fileTasks(dataDir: string): TaskRecords {
  const path = join(dataDir, TASKS_FILE_NAME);
  const callsPath = join(dataDir, CALLS_FILE_NAME);
  const damaged = (file: string) => (reason: string, cause: unknown) =>
    new WalletError('POLICY_VIOLATION', `The approval tasks file ${file} is damaged (${reason}).`, {
      hint: 'Delete it: the calls waiting as tasks are then asked again; no approval is lost.',
      cause,
    });
  const read = async (): Promise<{ tasks: ApprovalTask[]; old: boolean }> => {
    const file = await readStateFile(
      path,
      z.union([TasksFileSchema, OldTasksFileSchema]),
      `a ${FORMAT} file of version ${VERSION}`,
      damaged(path),
    );
    return {
      tasks: file?.version === VERSION ? file.tasks : [],
      old: file !== undefined && file.version !== VERSION,
    };
  };
  const readCalls = async (): Promise<CallsFile> =>
    (await readStateFile(
      callsPath,
      CallsFileSchema,
      `a ${CALLS_FORMAT} file of version ${CALLS_VERSION}`,
      damaged(callsPath),
    )) ?? {
      format: CALLS_FORMAT,
      version: CALLS_VERSION,
      calls: {},
      results: {},
    };
  /**
   * Writes `file` less what no task needs: a call whose task no longer waits (or waited past any
   * approval's life), a result whose task is gone. Under the tasks' lock.
   */
  const writeCalls = (file: CallsFile, tasks: readonly ApprovalTask[], now: number, before: string) => {
    const byId = new Map(tasks.map((task) => [task.id, task]));
    const calls = Object.fromEntries(
      Object.entries(file.calls).filter(([id]) => {
        const task = byId.get(id);
        return task?.state === 'working' && Date.parse(task.created) + CALL_KEPT_MS > now;
      }),
    );
    const results = Object.fromEntries(
      Object.entries(file.results).filter(([id]) => ['running', 'completed'].includes(byId.get(id)?.state ?? '')),
    );
    const text = `${JSON.stringify({ format: CALLS_FORMAT, version: CALLS_VERSION, calls, results }, null, 2)}\n`;
    if (text === before) return;
    if (Object.keys(calls).length === 0 && Object.keys(results).length === 0) {
      rmSync(callsPath, { force: true });
    } else {
      writeFileAtomic(callsPath, text);
    }
  };
  const shown = (file: CallsFile) => `${JSON.stringify(file, null, 2)}\n`;
  /** Changes the calls file under the tasks' lock, with the tasks as they are. */
  const editCalls = (edit: (file: CallsFile, tasks: readonly ApprovalTask[]) => boolean): Promise<boolean> => {
    ensurePrivateDir(dataDir);
    return withNamedLock(dataDir, 'approval-tasks', async () => {
      const now = Date.now();
      const tasks = (await read()).tasks.filter((task) => !forgottenTask(task, now));
      const file = await readCalls();
      const before = shown(file);
      const done = edit(file, tasks);
      writeCalls(file, tasks, now, before);
      return done;
    });
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
        // Read before the step (which may take an approval): a damaged calls file fails the change
        // before anything is taken or written, never after the tasks file says the run started.
        const calls = await readCalls();
        const { tasks, result } = await update(kept, now);
        if (tasks !== kept || kept.length !== all.length || old) {
          writeFileAtomic(path, `${JSON.stringify({ format: FORMAT, version: VERSION, tasks }, null, 2)}\n`);
        }
        // What the change ended leaves the calls file with it (a run's arguments, a forgotten result).
        writeCalls(calls, tasks, now, shown(calls));
        return result;
      });
    },
    keepCall: (id: string, call: StoredCall) =>
      editCalls((file, tasks) => {
        if (tasks.find((task) => task.id === id)?.state !== 'working') return false;
        file.calls[id] = call;
        return true;
      }),
    call: async (id) => (await readCalls()).calls[id],
    keepResult: async (id, result) => {
      await editCalls((file) => {
        file.results[id] = result;
        return true;
      });
    },
    result: async (id) => (await readCalls()).results[id],
    renew: () => Promise.resolve(),
  };
}

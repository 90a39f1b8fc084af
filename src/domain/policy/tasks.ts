import { join } from 'node:path';
import { z } from 'zod';
import { nodeCrypto } from '../../shared/node-crypto.js';
import { ensurePrivateDir, writeFileAtomic } from '../../shared/private-files.js';
import { WalletError } from '../errors.js';
import { withNamedLock } from '../keystore/lock.js';
import { readStateFile } from './state-file.js';

const TASKS_FILE_NAME = 'approval-tasks.json';
const FORMAT = 'wallet-approval-tasks';
const VERSION = 1;
/** How long a task is kept after its last change: a client may come back for its result within it. */
export const TASK_TTL_MS = 24 * 60 * 60_000;
/** Tasks kept at once, at most (each is bound to an approval, of which at most 50 wait). */
const MAX_TASKS = 500;

/**
 * Where a task stands. `working`: its approval waits for the owner; `running`: the owner said yes
 * and the call runs (once: the approval was spent when it started); then `completed` (the tool's
 * result, an error result included), `failed` (the owner denied, the approval expired or was lost,
 * or the run was interrupted) or `cancelled` (the client withdrew it).
 */
const TASK_STATES = ['working', 'running', 'completed', 'failed', 'cancelled'] as const;

const JsonObject = z.record(z.string(), z.unknown());

const ApprovalTaskSchema = z.strictObject({
  /** `tk-` and 26 base32 letters (130 bits): a bearer handle no other client can guess. */
  id: z.string().regex(/^tk-[a-z2-7]{26}$/),
  /** The approval it waits for, and the call that approval is bound to. */
  approval: z.string().regex(/^ap-[a-z2-7]{10}$/),
  digest: z.string().min(16).max(128),
  tool: z.string().max(64),
  /** The arguments as the server validated them (with defaults): what the digest binds. */
  arguments: JsonObject,
  state: z.enum(TASK_STATES),
  created: z.iso.datetime(),
  updated: z.iso.datetime(),
  /** The process running it (state `running`): one that is gone left it interrupted. */
  pid: z.number().int().positive().optional(),
  /** What the client is told of where it stands (the approval page's address, why it failed). */
  message: z.string().max(2000).optional(),
  /** The tool's result (completed), as the call would have returned it. */
  result: JsonObject.optional(),
  /** The JSON-RPC error (failed): its data carries the wallet's error code, message and hint. */
  error: z
    .strictObject({ code: z.number().int(), message: z.string().max(2000), data: JsonObject.optional() })
    .optional(),
});

export type ApprovalTask = z.infer<typeof ApprovalTaskSchema>;

const TasksFileSchema = z.strictObject({
  format: z.literal(FORMAT),
  version: z.literal(VERSION),
  tasks: z.array(ApprovalTaskSchema),
});

/**
 * The MCP tasks of calls that wait for the owner (`<dataDir>/approval-tasks.json`, next to the
 * approvals: 0600, replaced atomically, changed under a cross-process lock), so a task survives a
 * restart of `wallet serve` and any server instance of the process, or a later one, answers it.
 */
export class TaskStore {
  readonly path: string;

  constructor(private readonly dataDir: string) {
    this.path = join(dataDir, TASKS_FILE_NAME);
  }

  /** A new task for the call waiting on `approval`, or the one already open for that approval. */
  async create(
    fields: Pick<ApprovalTask, 'approval' | 'digest' | 'tool' | 'arguments' | 'message'>,
  ): Promise<ApprovalTask> {
    return this.change((tasks, now) => {
      const open = tasks.find((task) => task.approval === fields.approval && task.state === 'working');
      if (open) return { tasks, result: open };
      if (tasks.length >= MAX_TASKS) {
        throw new WalletError('POLICY_VIOLATION', `${tasks.length} approval tasks are already kept.`, {
          hint: 'They are forgotten a day after their last change; the owner answers the pending ones with wallet approvals.',
        });
      }
      const time = new Date(now).toISOString();
      const task: ApprovalTask = { id: newTaskId(), ...fields, state: 'working', created: time, updated: time };
      return { tasks: [...tasks, task], result: task };
    });
  }

  /** The task `id`, if it is kept. */
  async get(id: string): Promise<ApprovalTask | undefined> {
    const now = Date.now();
    return (await this.read()).find((task) => task.id === id && !forgotten(task, now));
  }

  /**
   * Changes the task `id` under the lock, with `step` (which may look elsewhere, an approval,
   * while the lock is held, so two processes never both move one task on): undefined when unknown.
   */
  async advance(
    id: string,
    step: (task: ApprovalTask) => Promise<Partial<Omit<ApprovalTask, 'id'>> | undefined>,
  ): Promise<ApprovalTask | undefined> {
    ensurePrivateDir(this.dataDir);
    return withNamedLock(this.dataDir, 'approval-tasks', async () => {
      const now = Date.now();
      const tasks = (await this.read()).filter((task) => !forgotten(task, now));
      const task = tasks.find((each) => each.id === id);
      if (!task) return undefined;
      const change = await step(task);
      if (!change) return task;
      const changed = ApprovalTaskSchema.parse({ ...task, ...change, updated: new Date().toISOString() });
      writeFileAtomic(this.path, serialize(tasks.map((each) => (each === task ? changed : each))));
      return changed;
    });
  }

  private async change<T>(
    update: (tasks: ApprovalTask[], now: number) => { tasks: ApprovalTask[]; result: T },
  ): Promise<T> {
    ensurePrivateDir(this.dataDir);
    return withNamedLock(this.dataDir, 'approval-tasks', async () => {
      const now = Date.now();
      const all = await this.read();
      const kept = all.filter((task) => !forgotten(task, now));
      const { tasks, result } = update(kept, now);
      if (tasks !== kept || kept.length !== all.length) writeFileAtomic(this.path, serialize(tasks));
      return result;
    });
  }

  private async read(): Promise<ApprovalTask[]> {
    const file = await readStateFile(
      this.path,
      TasksFileSchema,
      `a ${FORMAT} file of version ${VERSION}`,
      (reason, cause) =>
        new WalletError('POLICY_VIOLATION', `The approval tasks file ${this.path} is damaged (${reason}).`, {
          hint: 'Delete it: the calls waiting as tasks are then asked again; no approval is lost.',
          cause,
        }),
    );
    return file?.tasks ?? [];
  }
}

function serialize(tasks: readonly ApprovalTask[]): string {
  return `${JSON.stringify({ format: FORMAT, version: VERSION, tasks }, null, 2)}\n`;
}

/** Gone from the file: a task unchanged for longer than its time to live. */
function forgotten(task: ApprovalTask, now: number): boolean {
  return Date.parse(task.updated) + TASK_TTL_MS <= now;
}

function newTaskId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bytes = nodeCrypto().randomBytes(26);
  return `tk-${[...bytes].map((byte) => alphabet[byte & 31]).join('')}`;
}

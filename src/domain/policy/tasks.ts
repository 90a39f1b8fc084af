import { join } from 'node:path';
import { z } from 'zod';
import { nodeCrypto } from '../../shared/node-crypto.js';
import { ensurePrivateDir, writeFileAtomic } from '../../shared/private-files.js';
import { WalletError } from '../errors.js';
import { withNamedLock } from '../keystore/lock.js';
import { readStateFile } from './state-file.js';

const TASKS_FILE_NAME = 'approval-tasks.json';
const FORMAT = 'wallet-approval-tasks';
const VERSION = 2;
/** How long a task is kept after its last change: a client may come back for its result within it. */
export const TASK_TTL_MS = 24 * 60 * 60_000;
/** Tasks kept at once, at most: the ended ones are forgotten first to make room. */
const MAX_TASKS = 500;
/** Tasks one session may have waiting or running at once (as many as approvals may wait). */
const MAX_OPEN_PER_SESSION = 50;

/**
 * Where a task stands. `working`: its approval waits for the owner; `running`: the owner said yes
 * and the call runs (once: the approval was spent when it started); then `completed` (the tool's
 * result, an error result included), `failed` (the owner denied, the approval expired, was used
 * by another call or was lost, the run was interrupted, or the call's arguments were lost with a
 * restart) or `cancelled` (the client withdrew it).
 */
const TASK_STATES = ['working', 'running', 'completed', 'failed', 'cancelled'] as const;
const OPEN_STATES: ReadonlySet<string> = new Set(['working', 'running']);

const JsonObject = z.record(z.string(), z.unknown());

/**
 * A task as the file keeps it: no arguments and no result. The call's arguments (an x402 URL may
 * carry a secret in its query) and the tool's result live only in the memory of the process that
 * took the call; what the owner is shown of it is the approval's summary, in approvals.json.
 */
const ApprovalTaskSchema = z.strictObject({
  /** `tk-` and 26 base32 letters (130 bits): a bearer handle no other client can guess. */
  id: z.string().regex(/^tk-[a-z2-7]{26}$/),
  /** A hash of the session that made it: only that session sees, cancels or reads it. */
  session: z.string().regex(/^[0-9a-f]{64}$/),
  /** The approval it waits for, and the call that approval is bound to. */
  approval: z.string().regex(/^ap-[a-z2-7]{10}$/),
  digest: z.string().min(16).max(128),
  tool: z.string().max(64),
  state: z.enum(TASK_STATES),
  created: z.iso.datetime(),
  updated: z.iso.datetime(),
  /** The process that holds the call (its arguments, then its run): one that is gone lost them. */
  pid: z.number().int().positive().optional(),
  /** What the client is told of where it stands (the approval page's address, why it failed). */
  message: z.string().max(2000).optional(),
  /** Whether the run's result was an error result (`completed`): for the owner's view, not the result. */
  is_error: z.boolean().optional(),
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
 * A version 1 file (it kept arguments and results): read as no tasks, and replaced at the next
 * change, so what it held leaves the disk. Its calls' approvals stand: a repeated call finds them.
 */
const OldTasksFileSchema = z.looseObject({ format: z.literal(FORMAT), version: z.literal(1) });

/**
 * The MCP tasks of calls that wait for the owner (`<dataDir>/approval-tasks.json`, next to the
 * approvals: 0600, replaced atomically, changed under a cross-process lock): what each task waits
 * on and how it ended, for the session that made it, and for the process that finds a run
 * interrupted by a stopped server.
 */
export class TaskStore {
  readonly path: string;
  /** The file last read was of version 1 (with arguments and results): the next change replaces it. */
  private oldFormat = false;

  constructor(private readonly dataDir: string) {
    this.path = join(dataDir, TASKS_FILE_NAME);
  }

  /**
   * A new task of `session` for the call waiting on `approval`, or the one that session already
   * has open for it (never another session's). Ended tasks are forgotten first when the file is
   * full; a session with {@link MAX_OPEN_PER_SESSION} open tasks is refused another.
   */
  async create(
    fields: Pick<ApprovalTask, 'session' | 'approval' | 'digest' | 'tool' | 'message' | 'pid'>,
  ): Promise<ApprovalTask> {
    return this.change((tasks, now) => {
      const mine = tasks.filter((task) => task.session === fields.session && OPEN_STATES.has(task.state));
      const open = mine.find((task) => task.approval === fields.approval && task.state === 'working');
      if (open) return { tasks, result: open };
      if (mine.length >= MAX_OPEN_PER_SESSION) {
        throw new WalletError('POLICY_VIOLATION', `This session has ${mine.length} approval tasks open already.`, {
          hint: 'Wait for the owner to answer them, or cancel some (tasks/cancel); nothing was signed.',
        });
      }
      let kept = tasks;
      if (kept.length >= MAX_TASKS) {
        // The ended ones make room, oldest first; open ones are never dropped for a newcomer.
        const ended = kept.filter((task) => !OPEN_STATES.has(task.state)).sort(byUpdated);
        const drop = new Set(ended.slice(0, kept.length - MAX_TASKS + 1));
        kept = kept.filter((task) => !drop.has(task));
      }
      if (kept.length >= MAX_TASKS) {
        throw new WalletError('POLICY_VIOLATION', `${kept.length} approval tasks are open already.`, {
          hint: 'The owner answers the pending ones with wallet approvals; nothing was signed.',
        });
      }
      const time = new Date(now).toISOString();
      const task: ApprovalTask = { id: newTaskId(), ...fields, state: 'working', created: time, updated: time };
      return { tasks: [...kept, task], result: task };
    });
  }

  /** The task `id` of `session`, if it is kept (another session's is not there for it). */
  async get(id: string, session: string): Promise<ApprovalTask | undefined> {
    const now = Date.now();
    return (await this.read()).find((task) => task.id === id && task.session === session && !forgotten(task, now));
  }

  /**
   * Changes the task `id` of `session` under the lock, with `step` (which may look elsewhere, an
   * approval, while the lock is held, so two processes never both move one task on; it sees the
   * other tasks too): undefined when unknown to that session.
   */
  async advance(
    id: string,
    session: string | undefined,
    step: (
      task: ApprovalTask,
      others: readonly ApprovalTask[],
    ) => Promise<Partial<Omit<ApprovalTask, 'id' | 'session'>> | undefined>,
  ): Promise<ApprovalTask | undefined> {
    ensurePrivateDir(this.dataDir);
    return withNamedLock(this.dataDir, 'approval-tasks', async () => {
      const now = Date.now();
      const tasks = (await this.read()).filter((task) => !forgotten(task, now));
      const task = tasks.find((each) => each.id === id && (session === undefined || each.session === session));
      if (!task) return undefined;
      const change = await step(
        task,
        tasks.filter((each) => each !== task),
      );
      if (!change) return task;
      const changed = ApprovalTaskSchema.parse({ ...task, ...change, updated: new Date().toISOString() });
      writeFileAtomic(this.path, serialize(tasks.map((each) => (each === task ? changed : each))));
      return changed;
    });
  }

  /** The tasks open (`working` or `running`) in a process other than this one: those a stopped server left. */
  async openElsewhere(): Promise<ApprovalTask[]> {
    const now = Date.now();
    return (await this.read()).filter(
      (task) => OPEN_STATES.has(task.state) && task.pid !== process.pid && !forgotten(task, now),
    );
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
      if (tasks !== kept || kept.length !== all.length || this.oldFormat) writeFileAtomic(this.path, serialize(tasks));
      return result;
    });
  }

  private async read(): Promise<ApprovalTask[]> {
    const file = await readStateFile(
      this.path,
      z.union([TasksFileSchema, OldTasksFileSchema]),
      `a ${FORMAT} file of version ${VERSION}`,
      (reason, cause) =>
        new WalletError('POLICY_VIOLATION', `The approval tasks file ${this.path} is damaged (${reason}).`, {
          hint: 'Delete it: the calls waiting as tasks are then asked again; no approval is lost.',
          cause,
        }),
    );
    this.oldFormat = file !== undefined && file.version !== VERSION;
    return file?.version === VERSION ? file.tasks : [];
  }
}

const byUpdated = (a: ApprovalTask, b: ApprovalTask): number => a.updated.localeCompare(b.updated);

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

import { nodeCrypto } from '../../shared/node-crypto.js';
import { WalletError } from '../errors.js';
import { fileTasks } from '../state/files/tasks.js';
import { sharedStateOf } from '../state/shared.js';
import type { StateStore } from '../state/store.js';
import {
  ApprovalTaskSchema,
  forgottenTask,
  OPEN_STATES,
  type ApprovalTask,
  type CallPassphrase,
  type StoredCall,
  type TaskRecords,
} from './task-record.js';

export { TASK_TTL_MS, type ApprovalTask, type StoredCall } from './task-record.js';

/** Tasks kept at once, at most: the ended ones are forgotten first to make room. */
const MAX_TASKS = 500;
/** Tasks one session may have waiting or running at once (as many as approvals may wait). */
const MAX_OPEN_PER_SESSION = 50;

/**
 * The MCP tasks of calls that wait for the owner (`<dataDir>/approval-tasks.json`, next to the
 * approvals: 0600, replaced atomically, changed under a cross-process lock; or, while this process
 * has a PostgreSQL state store open for `dataDir`, its `wallet_approval_tasks`): what each task
 * waits on and how it ended, for the session that made it, and for the process (or replica) that
 * finds a run interrupted by a stopped server.
 */
export class TaskStore {
  /** The data directory's file (the store's table is named in its messages). */
  readonly path: string;
  private readonly files: TaskRecords;

  /**
   * `state` opens the state store of a server (`WalletServices.stateStore`): its tasks are used,
   * the store's even when a call comes before the server's start has opened it; without it, the
   * store this process opened for `dataDir`, if any, else the file.
   */
  constructor(
    private readonly dataDir: string,
    private readonly state?: () => Promise<StateStore>,
    private readonly passphrase: CallPassphrase = () => Promise.resolve(undefined),
  ) {
    this.files = fileTasks(dataDir);
    this.path = this.files.path;
  }

  /** Where the tasks are: the server's state store, or the store open for the data directory, else its file. */
  private async records(): Promise<TaskRecords> {
    if (this.state) return (await this.state()).tasks;
    return sharedStateOf(this.dataDir)?.tasks ?? this.files;
  }

  /** This process as the holder of calls: its replica id in the store (undefined with the files). */
  async replica(): Promise<string | undefined> {
    return (await this.records()).replica;
  }

  /**
   * A new task of `session` for the call waiting on `approval`, or the one that session already
   * has open for it (never another session's). Ended tasks are forgotten first when the records
   * are full; a session with {@link MAX_OPEN_PER_SESSION} open tasks is refused another.
   */
  async create(
    fields: Pick<ApprovalTask, 'session' | 'approval' | 'digest' | 'tool' | 'message' | 'pid' | 'replica'>,
  ): Promise<ApprovalTask> {
    return (await this.records()).change((tasks, now) => {
      const mine = tasks.filter((task) => task.session === fields.session && OPEN_STATES.has(task.state));
      const open = mine.find((task) => task.approval === fields.approval && task.state === 'working');
      if (open) return Promise.resolve({ tasks, result: open });
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
      return Promise.resolve({ tasks: [...kept, task], result: task });
    });
  }

  /** The task `id` of `session`, if it is kept (another session's is not there for it). */
  async get(id: string, session: string): Promise<ApprovalTask | undefined> {
    const { tasks, now } = await (await this.records()).read();
    return tasks.find((task) => task.id === id && task.session === session && !forgottenTask(task, now));
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
    return (await this.records()).change(async (tasks, now) => {
      const task = tasks.find((each) => each.id === id && (session === undefined || each.session === session));
      if (!task) return { tasks, result: undefined };
      const change = await step(
        task,
        tasks.filter((each) => each !== task),
      );
      if (!change) return { tasks, result: task };
      const changed = ApprovalTaskSchema.parse({
        ...task,
        ...change,
        updated: new Date(Math.max(now, Date.now())).toISOString(),
      });
      return { tasks: tasks.map((each) => (each === task ? changed : each)), result: changed };
    });
  }

  /**
   * The tasks open (`working` or `running`) in a process other than this one (another replica,
   * with a store): those a stopped server may have left.
   */
  async openElsewhere(): Promise<ApprovalTask[]> {
    const records = await this.records();
    const { tasks, now } = await records.read();
    const replica = records.replica;
    return tasks.filter(
      (task) =>
        OPEN_STATES.has(task.state) &&
        (replica === undefined ? task.pid !== process.pid : task.replica !== replica) &&
        !forgottenTask(task, now),
    );
  }

  /**
   * Keeps the call of task `id`, still waiting, where a restarted server finds it (owner-only in
   * the data directory; sealed under the keystore passphrase in a state store): false where it
   * stays in this process's memory only (a state store, and no passphrase at hand).
   */
  async keepCall(id: string, call: StoredCall): Promise<boolean> {
    return (await this.records()).keepCall(id, call, this.passphrase);
  }

  /** The call kept for task `id` while it waits, if any. */
  async call(id: string): Promise<StoredCall | undefined> {
    return (await this.records()).call(id, this.passphrase);
  }

  /** Keeps the result of task `id`'s run where any server finds it (a restarted one, another replica). */
  async keepResult(id: string, result: Record<string, unknown>): Promise<void> {
    await (await this.records()).keepResult(id, result);
  }

  /** The result kept for task `id`, if any. */
  async result(id: string): Promise<Record<string, unknown> | undefined> {
    return (await this.records()).result(id);
  }

  /** Renews this replica's lease on the calls `ids` it holds (with a store). */
  async renew(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await (await this.records()).renew(ids);
  }
}

const byUpdated = (a: ApprovalTask, b: ApprovalTask): number => a.updated.localeCompare(b.updated);

function newTaskId(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bytes = nodeCrypto().randomBytes(26);
  return `tk-${[...bytes].map((byte) => alphabet[byte & 31]).join('')}`;
}

import { z } from 'zod';

/** How long a task is kept after its last change: a client may come back for its result within it. */
export const TASK_TTL_MS = 24 * 60 * 60_000;

/**
 * Where a task stands. `working`: its approval waits for the owner; `running`: the owner said yes
 * and the call runs (once: the approval was spent when it started); then `completed` (the tool's
 * result, an error result included), `failed` (the owner denied, the approval expired, was used
 * by another call or was lost, the run was interrupted, or the call's arguments were lost with a
 * restart) or `cancelled` (the client withdrew it).
 */
const TASK_STATES = ['working', 'running', 'completed', 'failed', 'cancelled'] as const;
export const OPEN_STATES: ReadonlySet<string> = new Set(['working', 'running']);

const JsonObject = z.record(z.string(), z.unknown());

/**
 * A task as the records keep it: never the call's arguments (an x402 URL may carry a secret in its
 * query): those are a {@link StoredCall}, kept apart, owner-only, only while the task waits (or
 * only in the memory of the process that took the call, where they cannot be kept privately); what
 * the owner is shown of the call is the approval's summary. The tool's result is kept apart too,
 * owner-only in the data directory, or in the task's row of a state store (a tool's result
 * carries no secret), for a server that did not run it.
 */
export const ApprovalTaskSchema = z.strictObject({
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
  /**
   * With a state store, the replica that holds the call (pids of two machines say nothing of each
   * other), and whether its lease was current when read (by the store's clock): a replica that
   * stopped renewing it is gone, with the call. Never in the data directory's file.
   */
  replica: z
    .string()
    .regex(/^rp-[a-z2-7]{16}$/)
    .optional(),
  held: z.boolean().optional(),
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

/**
 * A task's call as kept for a server restarted before the owner's answer: the tool and its
 * arguments as validated where the call entered (its digest is the approval's). It may hold a
 * secret (an x402 URL's query): kept only where the owner alone can read it, only while the task
 * waits, and never for a tool with a secret input (those are local-only: never served).
 */
export const StoredCallSchema = z.strictObject({ tool: z.string().max(64), arguments: JsonObject });
export type StoredCall = z.infer<typeof StoredCallSchema>;

/**
 * Where the tasks live: the data directory's `approval-tasks.json`
 * (src/domain/state/files/tasks.ts) or the state store's `wallet_approval_tasks`
 * (src/domain/state/pg/tasks.ts). The rules are {@link TaskStore}'s, the same for both: `change`
 * runs its update holding every task alone (a file lock, a transaction's lock), with the time by
 * the records' clock, those forgotten left out, and keeps what it returns.
 */
export type TaskRecords = {
  /** Where they are, for messages. */
  readonly path: string;
  /** This process as the holder of the calls it took: the store's replica id (undefined: the files, where the pid tells). */
  readonly replica: string | undefined;
  /** Every task kept (some may be forgotten already), and the time by the records' clock. */
  read(): Promise<{ tasks: ApprovalTask[]; now: number }>;
  change<T>(update: (tasks: ApprovalTask[], now: number) => Promise<{ tasks: ApprovalTask[]; result: T }>): Promise<T>;
  /**
   * Keeps the call of task `id` (waiting) privately, for a server restarted before its run: in an
   * owner-only file, or sealed under a key derived from `passphrase` (the keystore's, asked only
   * by a shared store); false where it cannot be (no passphrase at hand: the call stays in the
   * memory of the process that took it). Dropped by the records as soon as the task stops waiting.
   */
  keepCall(id: string, call: StoredCall, passphrase: CallPassphrase): Promise<boolean>;
  /** The call kept for task `id` (still waiting), if any (and, sealed, if `passphrase` opens it). */
  call(id: string, passphrase: CallPassphrase): Promise<StoredCall | undefined>;
  /** Keeps the result of task `id`'s run for any server (a restarted one, another replica) to answer with. */
  keepResult(id: string, result: Record<string, unknown>): Promise<void>;
  /** The result kept for task `id`, if any. */
  result(id: string): Promise<Record<string, unknown> | undefined>;
  /** Renews this replica's lease on the calls `ids` it holds (the files: nothing, the pid tells). */
  renew(ids: readonly string[]): Promise<void>;
};

/** The keystore passphrase of this server, if it has one at hand (undefined: none given). */
export type CallPassphrase = () => Promise<string | undefined>;

/** Gone from the records: a task unchanged for longer than its time to live. */
export function forgottenTask(task: ApprovalTask, now: number): boolean {
  return Date.parse(task.updated) + TASK_TTL_MS <= now;
}

import {
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ClientCapabilities,
  type Server,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { WalletError } from '../domain/errors.js';
import type { Approval, ApprovalStore } from '../domain/policy/approvals.js';
import { TASK_TTL_MS, TaskStore, type ApprovalTask } from '../domain/policy/tasks.js';
import type { WalletServices } from '../domain/services.js';
import type { AnyTool } from '../tools/index.js';
import { validateInput, type ToolInput } from '../tools/invoke.js';
import { ERROR_META_KEY, type ToolErrorMeta } from '../shared/protocol-meta.js';
import { nodeCrypto } from '../shared/node-crypto.js';
import { callDigest, requestClientCapabilities } from './confirmation.js';
import { errorResult, successResult } from './results.js';

/** The MCP tasks extension (2026-07-28: `io.modelcontextprotocol/tasks`, SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** How often a client is asked to poll a task that waits for a person. */
const POLL_INTERVAL_MS = 2_000;
/** With a state store: how often a replica moves on the tasks whose calls it holds, and renews its lease on them. */
const DRIVE_MS = 2_000;
/**
 * How long a `tasks/get` waits for a run under way in its process before answering `working`:
 * within the 30 s a stdio `serve` gives the requests in flight when its input ends.
 */
const RUN_WAIT_MS = 20_000;
/** A round of the driver taking longer than this is stuck: the lease is no longer renewed. */
const STUCK_ROUND_MS = 120_000;
/**
 * How long a stopping `serve` waits for the task runs it started (see {@link finishTaskRuns}): 5
 * minutes, past the longest single step a run can wait on (the keystore's lock, 2 minutes; a
 * UTXO scan, 3 minutes; a broadcast, 30 s), so only a run stuck for good is cut by it.
 */
export const RUN_FINISH_MS = 300_000;

/** The task runs under way in this process (every {@link ApprovalTasks} of it), by task: what a stopping `serve` waits for. */
const RUNS = new Map<string, { tool: string; done: Promise<void> }>();
/** Wakes the waits of {@link finishTaskRuns}: a second signal cuts the runs. */
const cutters = new Set<() => void>();

/** How many task runs are under way in this process. */
export function taskRunsUnderWay(): number {
  return RUNS.size;
}

/**
 * For a `serve` that stops (end of stdin, SIGTERM, HTTP shutdown), after the requests in flight
 * were answered: waits for the task runs this process started to end, their results recorded as
 * any run's, so a later `tasks/get` (any client, any `serve` of the data directory) answers them.
 * Says once on `announce` (stderr) what it waits for. Bounded by `limitMs`
 * ({@link RUN_FINISH_MS}), or cut short by {@link cutTaskRuns}; resolves with how many runs are
 * still going (0: all ended).
 */
export async function finishTaskRuns({
  announce,
  limitMs = RUN_FINISH_MS,
}: {
  announce: (line: string) => void;
  limitMs?: number;
}): Promise<number> {
  if (RUNS.size === 0) return 0;
  const tools = [...new Set([...RUNS.values()].map((run) => run.tool))].join(', ');
  announce(
    `waiting for ${RUNS.size} task run(s) under way to finish (${tools}; at most ${Math.round(limitMs / 1000)} s); a second SIGTERM, or Ctrl-C twice, cuts them.`,
  );
  let timer: NodeJS.Timeout | undefined;
  let over = false;
  let cut = (): void => undefined;
  const stopped = new Promise<void>((resolve) => {
    cut = () => {
      over = true;
      resolve();
    };
    timer = setTimeout(cut, limitMs);
  });
  cutters.add(cut);
  try {
    // A run started by a request answered meanwhile (or this replica's driver) is waited for too.
    while (RUNS.size > 0 && !over) {
      await Promise.race([Promise.allSettled([...RUNS.values()].map((run) => run.done)), stopped]);
    }
  } finally {
    clearTimeout(timer);
    cutters.delete(cut);
  }
  return RUNS.size;
}

/** Stops every wait of {@link finishTaskRuns} now (a second signal): how many runs it leaves cut. */
export function cutTaskRuns(): number {
  for (const cut of [...cutters]) cut();
  return RUNS.size;
}

/**
 * The JSON-RPC error code of a task that failed because the owner's yes did not come (denied,
 * expired, withdrawn) or its run was cut off: an implementation-defined server error; its data
 * carries the wallet's error (`POLICY_VIOLATION`, …) as a tool error's `_meta` does.
 */
const TASK_FAILED_CODE = -32000;

/** Whether the client declared the tasks extension, on this request (2026-07-28) or at initialize. */
export function canTask(capabilities: ClientCapabilities | undefined): boolean {
  const extensions = (capabilities as { extensions?: Record<string, unknown> } | undefined)?.extensions;
  return extensions?.[TASKS_EXTENSION] !== undefined;
}

/**
 * Who a request comes from, as a task is bound to it (hashed, as the records keep it), in terms a
 * restarted `serve` recognises: over HTTP the bearer token's holder, every holder of the token
 * one principal, on a 2025-era session as on stateless 2026-07-28 requests (a session's id dies
 * with its server; the token does not); over stdio the owner's agent host on this data directory
 * (stdio has no authentication: any stdio client of this data directory is the owner's own
 * process, which started it).
 */
export function sessionOf(transport: 'stdio' | 'http'): string {
  return nodeCrypto()
    .createHash('sha256')
    .update(transport === 'http' ? 'http-bearer' : 'stdio-owner')
    .digest('hex');
}

/** The fields of a call's approval a task needs to run it: the approval, how it was planned, whose it is. */
export type TaskCall = { input: ToolInput; approval: Approval; message: string; session: string };

/** Runs an approved call as the owner's yes allows (see ConsentGate): its output, or its failure. */
export type ApprovedRun = (input: ToolInput, approval: Approval) => Promise<Record<string, unknown>>;

/** The served tool of a name (the server's catalogue), for a call kept by a stopped server. */
export type ServedTool = (name: string) => AnyTool | undefined;

/**
 * The calls that wait for the owner as MCP tasks, for one process (every server instance of it):
 * a task is made where an agent without tasks would get `APPROVAL_REQUIRED`, bound to the
 * principal that made the call (see {@link sessionOf}: another principal's `tasks/get`,
 * `tasks/cancel` or deduplicated call never sees it); it is moved on when its client polls it
 * (`tasks/get`), from the approvals store, so any approve path (the page, the terminal) completes
 * it. The task takes its own approval, by id, when its run starts, under the tasks' lock: the call
 * runs once, in one process.
 *
 * The call's arguments may hold a secret (an x402 URL's query): with the files they are kept, while
 * the task waits, in an owner-only file of the data directory beside the tasks file, as is the
 * tool's result once it ran; with a state store (shared infrastructure) they are sealed in the
 * task's row under a key derived from the keystore passphrase, or, without one at hand, kept in
 * this process's memory only. So a restarted `serve` (another of the same data directory, another
 * replica) runs the call on the owner's yes. A task whose call was not kept (its process stopped)
 * is failed with `APPROVAL_REQUIRED` (repeat the exact call: the owner's approval still stands and
 * runs it once); one stopped during its run is failed as interrupted, never run again, and the
 * audit log says so.
 *
 * With a PostgreSQL state store (docs/REPLICAS.md) the tasks are the store's: a client's poll may
 * reach any replica. The replica holding a call moves its tasks on by itself (every
 * {@link DRIVE_MS}), renewing its lease on them; it takes the approval (once, for every replica)
 * and runs the call (as does any replica polled that opens its sealed call); the result goes into
 * the task's row, so `tasks/get` on any replica answers it. A replica whose lease lapsed is gone:
 * another takes over the calls it sealed, and fails its other tasks as above.
 */
export class ApprovalTasks {
  private readonly store: TaskStore;
  /** Inputs validated where the call entered, kept for its run in this process. */
  private readonly inputs = new Map<string, ToolInput>();
  /** Results of the runs this process made, by task: kept in memory for the task's time to live. */
  private readonly results = new Map<string, { result: Record<string, unknown>; until: number }>();
  /**
   * Approvals this process took for its tasks (spent), until the task's change to `running` is
   * written: one whose change was lost is still this task's to run, not "used by another call".
   */
  private readonly claims = new Map<string, Approval>();
  /** Runs under way in this process. */
  private readonly running = new Map<string, Promise<void>>();
  /** The tasks a stopped process left open, ended once (see {@link ApprovalTasks.sweep}). */
  private swept: Promise<void> | undefined;
  /** With a state store: the timer that moves on the tasks this replica holds (see {@link ApprovalTasks.drive}). */
  private driver: NodeJS.Timeout | undefined;
  /** A round of the driver under way: a slow store never piles rounds up. */
  private driving = false;
  /** A renewal of the lease under way (see {@link ApprovalTasks.drive}). */
  private renewing = false;
  /** When the round under way began. */
  private drivingSince: number | undefined;
  /** This process as the holder of calls: its replica id with a state store (see {@link ApprovalTasks.identify}). */
  private me: string | undefined;

  constructor(
    private readonly services: WalletServices,
    private readonly approvals: ApprovalStore,
    private readonly runApproved: ApprovedRun,
    private readonly served: ServedTool,
  ) {
    // The passphrase seals a call kept in a state store; a server without one keeps it in memory.
    this.store = new TaskStore(
      services.dataDir,
      () => services.stateStore(),
      () => services.passphrase('unlock').catch(() => undefined),
    );
  }

  /** A task for a call that waits for `approval` (the session's own one already open for it, asked again): its handle. */
  async start({ input, approval, message, session }: TaskCall): Promise<Record<string, unknown>> {
    await this.identify();
    await this.sweep();
    const task = await this.store.create({
      session,
      approval: approval.id,
      digest: approval.digest,
      tool: input.tool.name,
      message: await this.withPasskey(message, approval.id),
      pid: process.pid,
      ...this.holder(),
    });
    this.inputs.set(task.id, input);
    // Kept privately for a restart (the files: owner-only); a tool with a secret input is never
    // served, so never a task, and is never kept all the same. A call not kept stays in memory.
    if (input.tool.localOnly !== true) {
      await this.store.keepCall(task.id, { tool: input.tool.name, arguments: input.data }).catch(() => false);
    }
    if (this.me !== undefined) this.drive();
    return { resultType: 'task', ...(await this.wire(task)) };
  }

  /**
   * `tasks/get`: the session's task as it stands now, moved on first if the owner has answered. A
   * run under way in this process is waited for, {@link RUN_WAIT_MS} at most, before answering: a
   * client that polls once and leaves (the CLI's `tasks get` stops the stdio `serve` it started
   * once answered) gets the run's end when it is that quick; a longer run goes on, and a `serve`
   * stopping waits for it ({@link finishTaskRuns}) so that its end is recorded for the next poll.
   */
  async get(taskId: string, session: string): Promise<Record<string, unknown>> {
    await this.identify();
    await this.sweep();
    const task = await this.move(taskId, session);
    if (!task) throw unknownTask(taskId);
    const run = this.running.get(task.id);
    if (!run) return this.wire(task);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([run, new Promise((resolve) => (timer = setTimeout(resolve, RUN_WAIT_MS)))]);
    clearTimeout(timer);
    // Read again for how it ended (the store down meanwhile: as it stood, still running).
    return this.wire((await this.store.get(task.id, session).catch(() => undefined)) ?? task);
  }

  /**
   * The task's status message, saying, once a passkey is enrolled, that only a passkey's yes on the
   * approval page counts: the terminal's command then opens that page, it approves nothing itself.
   */
  private async withPasskey(message: string, approval: string): Promise<string> {
    const enrolled = await this.services
      .stateStore()
      .then((state) => state.passkeys.enrolledNow())
      .catch(() => false);
    if (!enrolled) return message;
    return `${message} A passkey is enrolled: the owner approves with it on the approval page ("wallet approvals approve ${approval}" opens that page).`;
  }

  /** This process as a task's holder: its replica id too, with a state store. */
  private holder(): { replica?: string } {
    return this.me === undefined ? {} : { replica: this.me };
  }

  /** Learns this process's replica id (the state store's, opened now if the server's start has not yet). */
  private async identify(): Promise<void> {
    this.me = await this.store.replica();
  }

  /**
   * With a state store, the client's polls may go to other replicas: this one moves on the tasks
   * whose calls it holds by itself, and renews its lease on them, until it holds none.
   */
  private drive(): void {
    if (this.driver) return;
    this.driver = setInterval(() => {
      const held = [...new Set([...this.inputs.keys(), ...this.running.keys()])];
      if (held.length === 0) {
        clearInterval(this.driver);
        this.driver = undefined;
        return;
      }
      // The lease is renewed on its own: a round waiting on the store's locks (another replica's
      // change, this one's take of an approval) must not let it lapse while this replica lives.
      // A round stuck far longer than any lock wait (a connection that never answers) stops them:
      // this replica is then as good as gone, and another fails its tasks ("call again").
      const stuck = this.drivingSince !== undefined && Date.now() - this.drivingSince > STUCK_ROUND_MS;
      if (!this.renewing && !stuck) {
        this.renewing = true;
        void this.store
          .renew(held)
          .catch(() => undefined)
          .finally(() => {
            this.renewing = false;
          });
      }
      if (this.driving) return;
      this.driving = true;
      this.drivingSince = Date.now();
      void (async () => {
        for (const id of [...this.inputs.keys()]) {
          if (this.running.has(id)) continue;
          // A task gone from the store (forgotten, or its row deleted) has nothing left to run.
          if (!(await this.move(id, undefined))) this.inputs.delete(id);
        }
      })()
        .catch(() => undefined)
        .finally(() => {
          this.driving = false;
          this.drivingSince = undefined;
        });
    }, DRIVE_MS);
    this.driver.unref();
  }

  /** Moves the task `taskId` (of `session`; any, for this replica's own driver) on if the owner has answered. */
  private async move(taskId: string, session: string | undefined): Promise<ApprovalTask | undefined> {
    let claimed: Approval | undefined;
    let interrupted: ApprovalTask | undefined;
    const running = (current: ApprovalTask): Partial<ApprovalTask> => ({
      state: 'running',
      message: `Approved: ${current.tool} is running.`,
      pid: process.pid,
      ...this.holder(),
    });
    const task = await this.store.advance(taskId, session, async (current) => {
      const mine = this.claims.get(current.id);
      if (current.state === 'running' && mine?.id === current.approval && !this.running.has(current.id)) {
        // Written, but its commit's answer was lost: this process took the approval and never ran it.
        claimed = mine;
        return undefined;
      }
      if (current.state === 'running' && !this.running.has(current.id) && !this.alive(current)) {
        interrupted = current;
        return interruptedRun(current);
      }
      if (current.state !== 'working') return undefined;
      let adopted: Partial<ApprovalTask> | undefined;
      if (!this.inputs.has(current.id)) {
        // The call kept by the server that took it (a restart, or another `serve` of this data
        // directory): this process runs it; the approval is taken under this lock, so once.
        const kept = await this.restore(current);
        if (kept.input) {
          this.inputs.set(current.id, kept.input);
          if (!this.alive(current)) adopted = { pid: process.pid, ...this.holder() };
        } else if (this.alive(current)) {
          // Another live process holds the call: it runs it when its client asks there (another
          // replica, with a store: by itself).
          return undefined;
        } else {
          return kept.found ? keptCallRefused(current) : argumentsLost(current);
        }
      }
      const lookup = await this.approvals.take(current.digest, current.approval);
      if (lookup.kind === 'pending') return adopted;
      if (lookup.kind === 'refused') return failedWith(lookup.error);
      if (lookup.kind === 'used' && mine?.id === current.approval) {
        // This process took it for this task, and the change that said so was lost (the store's
        // connection died after the take): no one else can have it; the task runs it now.
        claimed = mine;
        return running(current);
      }
      if (lookup.kind === 'used') {
        return failed(
          'POLICY_VIOLATION',
          `Approval ${current.approval} was used by another call of ${current.tool} with the same arguments (repeated outside this task); this task signed nothing.`,
          { hint: 'The audit log has the call that used it; call again only if another is wanted.' },
        );
      }
      if (lookup.kind === 'none') {
        return failed('POLICY_VIOLATION', `Approval ${current.approval} is no longer there; nothing was signed.`, {
          hint: 'Call again to ask the owner for a new approval.',
        });
      }
      claimed = lookup.approval;
      // Kept until the task's change that records it is written (see above).
      this.claims.set(current.id, claimed);
      return running(current);
    });
    if (!task) return undefined;
    // A call this replica took over from a stopped one (kept sealed in the store): it moves it on.
    if (this.me !== undefined && this.inputs.has(task.id)) this.drive();
    if (task.state !== 'working') this.claims.delete(task.id);
    if (interrupted) await this.auditInterrupted(interrupted);
    // A task ended without a run here (denied, expired, its approval used elsewhere, or run by
    // another process that also had its call) drops its call's arguments now: they may hold a
    // secret (an x402 URL's query), and nothing here will run them.
    if (task.state !== 'working' && !claimed && !this.running.has(task.id)) this.inputs.delete(task.id);
    if (claimed) this.execute(task, claimed);
    return task;
  }

  /**
   * `tasks/cancel`: a task of the session still waiting withdraws its approval request (unless
   * another open task waits on the same approval), atomically: under the tasks' lock, so no poll
   * can take the approval between the two; any other task is left as it is.
   */
  async cancel(taskId: string, session: string): Promise<void> {
    let withdrawn: Approval | undefined;
    let cancelled: ApprovalTask | undefined;
    const task = await this.store.advance(taskId, session, async (current, others) => {
      if (current.state !== 'working') return undefined;
      const shared = others.some((other) => other.approval === current.approval && other.state === 'working');
      if (!shared) withdrawn = await this.approvals.withdraw(current.approval);
      cancelled = current;
      return {
        state: 'cancelled' as const,
        message: `Cancelled by the client: ${shared ? 'another call still waits on' : 'withdrawn'} approval ${current.approval}; nothing was signed.`,
      };
    });
    if (!task) throw unknownTask(taskId);
    if (cancelled) {
      this.inputs.delete(cancelled.id);
      await this.audit(cancelled, {
        code: 'POLICY_VIOLATION',
        message: `Cancelled by the client while it waited for approval ${cancelled.approval}${withdrawn ? ', which was withdrawn' : ''}. Nothing was signed.`,
      });
    }
  }

  /**
   * Ends, once per process, the open tasks a stopped process left: a run cut off is failed as
   * interrupted, with an audit line; a waiting call not kept (only in that process's memory) as
   * lost; a waiting call kept privately is left to wait for its principal's next poll.
   */
  private sweep(): Promise<void> {
    this.swept ??= (async () => {
      for (const left of await this.store.openElsewhere()) {
        if (this.alive(left)) continue;
        let ended: ApprovalTask | undefined;
        await this.store.advance(left.id, undefined, (current) => {
          if (!(current.state === 'working' || current.state === 'running') || this.alive(current)) {
            return Promise.resolve(undefined);
          }
          ended = current;
          return current.state === 'running'
            ? Promise.resolve(interruptedRun(current))
            : // A waiting call kept privately is left to wait: the next poll runs it on the owner's yes.
              this.store.call(current.id).then((kept) => {
                if (kept) ended = undefined;
                return kept ? undefined : argumentsLost(current);
              });
        });
        if (ended?.state === 'running') await this.auditInterrupted(ended);
      }
    })().catch(() => undefined);
    return this.swept;
  }

  /**
   * The call kept for `task` by the server that took it, checked again as it entered (the served
   * tool, its input schema) and against the approval's digest: no input when none was kept
   * (`found` false) or it is not the call approved, or not one this server serves (`found` true).
   */
  private async restore(task: ApprovalTask): Promise<{ input?: ToolInput; found: boolean }> {
    const kept = await this.store.call(task.id);
    if (!kept) return { found: false };
    const tool = kept.tool === task.tool ? this.served(kept.tool) : undefined;
    if (!tool || tool.localOnly === true) return { found: true };
    const validation = validateInput(tool, kept.arguments);
    if (!validation.ok || callDigest(tool.name, validation.input.data) !== task.digest) return { found: true };
    return { input: validation.input, found: true };
  }

  /** Runs the claimed call once and keeps its result; a tool's error is a result too (isError). */
  private execute(task: ApprovalTask, approval: Approval): void {
    const run = (async () => {
      let result: Record<string, unknown>;
      let isError = false;
      try {
        const input = this.inputs.get(task.id);
        // The call run is the one approved: its digest is the approval's, or nothing runs.
        if (!input || callDigest(input.tool.name, input.data) !== approval.digest || approval.digest !== task.digest) {
          throw new WalletError('INTERNAL', `The call of task ${task.id} is not the one approved; nothing was signed.`);
        }
        result = completeResult(successResult(await this.runApproved(input, approval)));
      } catch (error) {
        isError = true;
        result = completeResult(errorResult(error));
      }
      const until = Date.now() + TASK_TTL_MS;
      this.results.set(task.id, { result, until });
      // The call ran: its end is written however long the store takes to come back (BUSY), the
      // task held as running meanwhile (its lease renewed), never judged an interrupted run.
      for (;;) {
        try {
          // With a store, for a poll that reaches another replica (a tool's result carries no secret).
          await this.store.keepResult(task.id, result);
          await this.store.advance(task.id, task.session, () =>
            Promise.resolve({
              state: 'completed' as const,
              message: `${task.tool} ${isError ? 'failed' : "ran with the owner's yes"}.`,
              is_error: isError,
            }),
          );
          return;
        } catch (error) {
          if (Date.now() >= until) throw error;
          await new Promise((resolve) => setTimeout(resolve, DRIVE_MS).unref());
        }
      }
    })()
      .catch(() => undefined)
      .finally(() => {
        this.running.delete(task.id);
        this.inputs.delete(task.id);
        RUNS.delete(task.id);
      });
    this.running.set(task.id, run);
    RUNS.set(task.id, { tool: task.tool, done: run });
  }

  /** A task as the wire shows it (`running` is `working` there: the client waits either way). */
  private async wire(task: ApprovalTask): Promise<Record<string, unknown>> {
    const now = Date.now();
    for (const [id, kept] of this.results) if (kept.until <= now) this.results.delete(id);
    let shown = task;
    const result =
      this.results.get(task.id)?.result ?? (task.state === 'completed' ? await this.store.result(task.id) : undefined);
    if (task.state === 'completed' && !result) {
      // Completed by a process since stopped whose result was not kept (nor written once the run ended).
      shown = {
        ...task,
        ...failed('INTERNAL', `${task.tool} ran, but its result was not kept past the server that ran it.`, {
          hint: 'The audit log and the account or wallet show what it did; do not call again to find out.',
        }),
      };
    }
    return {
      taskId: shown.id,
      status: shown.state === 'running' ? 'working' : shown.state,
      ...(shown.message ? { statusMessage: shown.message } : {}),
      createdAt: shown.created,
      lastUpdatedAt: shown.updated,
      ttlMs: TASK_TTL_MS,
      pollIntervalMs: POLL_INTERVAL_MS,
      ...(shown.state === 'completed' && result ? { result } : {}),
      ...(shown.state === 'failed' && shown.error ? { error: shown.error } : {}),
    };
  }

  /**
   * Whether another live process holds the task's call: with a store, another replica whose lease
   * on it is current (by the store's clock); with the files, another process of this machine.
   */
  private alive(task: ApprovalTask): boolean {
    if (task.replica !== undefined) return task.replica !== this.me && task.held === true;
    return alivePid(task);
  }

  private auditInterrupted(task: ApprovalTask): Promise<void> {
    return this.audit(task, {
      code: 'INTERNAL',
      message: `The run of ${task.tool} on approval ${task.approval} was interrupted: the server stopped while it ran; it may have been sent.`,
    });
  }

  /** An audit line for a task's call that ended without a run of its own: no arguments, the approval it was for. */
  private async audit(task: ApprovalTask, error: { code: string; message: string }): Promise<void> {
    await this.services
      .appendAudit({
        time: new Date().toISOString(),
        tool: task.tool,
        outcome: 'error',
        approval: task.approval,
        error,
      })
      .catch(() => undefined);
  }

  /** Registers `tasks/get`, `tasks/update` and `tasks/cancel` on a server (declared in its capabilities). */
  register(server: Server, sessionFor: (context: ServerContext) => string): void {
    const gate = (context: ServerContext): void => {
      if (!canTask(requestClientCapabilities(context, server.getClientCapabilities()))) {
        throw new MissingRequiredClientCapabilityError(
          { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
          `Missing required client capability: the ${TASKS_EXTENSION} extension.`,
        );
      }
    };
    const TaskParams = z.looseObject({ taskId: z.string().max(64) });
    server.setRequestHandler('tasks/get', { params: TaskParams }, async (params, context) => {
      gate(context);
      return this.get(params.taskId, sessionFor(context));
    });
    server.setRequestHandler(
      'tasks/update',
      // inputResponses is lifted out of params by the SDK (as on any request): only the task is named here.
      { params: TaskParams },
      async (params, context) => {
        gate(context);
        // No task of the wallet asks its client for input: responses are ignored, as the spec asks.
        if (!(await this.store.get(params.taskId, sessionFor(context)))) throw unknownTask(params.taskId);
        return {};
      },
    );
    server.setRequestHandler('tasks/cancel', { params: TaskParams }, async (params, context) => {
      gate(context);
      await this.cancel(params.taskId, sessionFor(context));
      return {};
    });
  }
}

const RUNNERS = new WeakMap<WalletServices, ApprovalTasks>();

/** The process's tasks for these services (one for every server instance that shares them). */
export function approvalTasksFor(services: WalletServices, make: () => ApprovalTasks): ApprovalTasks {
  let tasks = RUNNERS.get(services);
  if (!tasks) RUNNERS.set(services, (tasks = make()));
  return tasks;
}

function failed(
  code: 'POLICY_VIOLATION' | 'INTERNAL' | 'APPROVAL_REQUIRED',
  message: string,
  { hint }: { hint: string },
): Partial<ApprovalTask> {
  return failedWith(new WalletError(code, message, { hint }));
}

/** A task whose call this process does not hold (its server stopped before the run): the approval stands. */
function argumentsLost(task: ApprovalTask): Partial<ApprovalTask> {
  return failedWith(
    new WalletError(
      'APPROVAL_REQUIRED',
      `The server that took this call of ${task.tool} stopped before the owner's answer, and its arguments were kept only in its memory; nothing was signed.`,
      {
        hint: `Repeat the exact call (same arguments): approval ${task.approval} still stands, and once the owner approves it the call runs once.`,
        details: { approval_id: task.approval },
      },
    ),
  );
}

/**
 * A task whose kept call this server cannot run: not the call approved (changed since it was
 * kept) or not one of this server's tools (a `--read-only` serve, another profile): the approval stands.
 */
function keptCallRefused(task: ApprovalTask): Partial<ApprovalTask> {
  return failedWith(
    new WalletError(
      'APPROVAL_REQUIRED',
      `The server that took this call of ${task.tool} stopped before its run, and the call kept for it is not the one approved or not served here; nothing was signed.`,
      {
        hint: `Repeat the exact call (same arguments) on a server that serves ${task.tool}: approval ${task.approval} still stands, and once the owner approves it the call runs once.`,
        details: { approval_id: task.approval },
      },
    ),
  );
}

/** A run cut off by its server stopping: whether it was sent is not known here. */
function interruptedRun(task: ApprovalTask): Partial<ApprovalTask> {
  return failed('INTERNAL', `The run of ${task.tool} was interrupted (the server stopped while it ran).`, {
    hint: 'Check the account or wallet for whether it was sent before asking again; the audit log has the call.',
  });
}

function failedWith(error: WalletError): Partial<ApprovalTask> {
  const data: ToolErrorMeta = {
    code: error.code,
    message: error.message,
    ...(error.hint ? { hint: error.hint } : {}),
    ...(error.details ? { details: error.details } : {}),
  };
  return {
    state: 'failed',
    message: error.message,
    error: { code: TASK_FAILED_CODE, message: error.message, data: { [ERROR_META_KEY]: data } },
  };
}

/** Whether the process that started a task's run is still alive (it may be another `wallet serve`). */
function alivePid(task: ApprovalTask): boolean {
  if (task.pid === undefined || task.pid === process.pid) return false;
  try {
    process.kill(task.pid, 0);
    return true;
  } catch {
    return false;
  }
}

function unknownTask(taskId: string): ProtocolError {
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `Failed to retrieve task: no task '${taskId.slice(0, 64)}'.`,
  );
}

/** A tool result as the call itself would have returned it on the 2026-07-28 wire (a plain JSON object). */
function completeResult(result: object): Record<string, unknown> {
  return { ...(JSON.parse(JSON.stringify(result)) as Record<string, unknown>), resultType: 'complete' };
}

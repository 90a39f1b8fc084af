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
import type { ToolCatalogue } from '../tools/index.js';
import { validateInput, type ToolInput } from '../tools/invoke.js';
import { ERROR_META_KEY, type ToolErrorMeta } from '../shared/protocol-meta.js';
import { requestClientCapabilities } from './confirmation.js';
import { errorResult, successResult } from './results.js';

/** The MCP tasks extension (2026-07-28: `io.modelcontextprotocol/tasks`, SEP-2663). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** How often a client is asked to poll a task that waits for a person. */
const POLL_INTERVAL_MS = 2_000;

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

/** The fields of a call's approval a task needs to run it: the approval and how it was planned. */
export type TaskCall = { input: ToolInput; approval: Approval; message: string };

/** Runs an approved call as the owner's yes allows (see ConsentGate): its output, or its failure. */
export type ApprovedRun = (input: ToolInput, approval: Approval) => Promise<Record<string, unknown>>;

/**
 * The calls that wait for the owner as MCP tasks, for one process (every server instance of it):
 * a task is made where an agent without tasks would get `APPROVAL_REQUIRED`; it is moved on when
 * the client polls it (`tasks/get`), from the approvals store, so any approve path (the page, the
 * terminal) completes it. The owner's yes is spent when the run starts, under the tasks' lock:
 * the call runs once, in one process. Tasks and approvals are files, so a restart loses neither.
 */
export class ApprovalTasks {
  private readonly store: TaskStore;
  /** Inputs validated where the call entered, kept for its run in this process. */
  private readonly inputs = new Map<string, ToolInput>();
  /** Runs under way in this process. */
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    services: WalletServices,
    private readonly catalogue: ToolCatalogue,
    private readonly approvals: ApprovalStore,
    private readonly runApproved: ApprovedRun,
  ) {
    this.store = new TaskStore(services.dataDir);
  }

  /** A task for a call that waits for `approval` (the one already open for it, asked again): its handle. */
  async start({ input, approval, message }: TaskCall): Promise<Record<string, unknown>> {
    const task = await this.store.create({
      approval: approval.id,
      digest: approval.digest,
      tool: input.tool.name,
      arguments: input.data,
      message,
    });
    this.inputs.set(task.id, input);
    return { resultType: 'task', ...wireTask(task) };
  }

  /** `tasks/get`: the task as it stands now, moved on first if the owner has answered. */
  async get(taskId: string): Promise<Record<string, unknown>> {
    let claimed: Approval | undefined;
    const task = await this.store.advance(taskId, async (current) => {
      if (current.state === 'running' && !this.running.has(current.id) && !alive(current)) {
        return failed('INTERNAL', `The run of ${current.tool} was interrupted (the server stopped while it ran).`, {
          hint: 'Check the account or wallet for whether it was sent before asking again; the audit log has the call.',
        });
      }
      if (current.state !== 'working') return undefined;
      const lookup = await this.approvals.take(current.digest);
      if (lookup.kind === 'pending') return undefined;
      if (lookup.kind === 'refused') return failedWith(lookup.error);
      if (lookup.kind === 'none') {
        return failed('POLICY_VIOLATION', `Approval ${current.approval} is no longer there; nothing was signed.`, {
          hint: 'Call again to ask the owner for a new approval.',
        });
      }
      claimed = lookup.approval;
      return { state: 'running', message: `Approved: ${current.tool} is running.`, pid: process.pid };
    });
    if (!task) throw unknownTask(taskId);
    if (claimed) this.execute(task, claimed);
    return wireTask(task);
  }

  /** `tasks/cancel`: a task still waiting withdraws its approval request; any other is left as it is. */
  async cancel(taskId: string): Promise<void> {
    let withdraw: string | undefined;
    const task = await this.store.advance(taskId, (current) => {
      if (current.state !== 'working') return Promise.resolve(undefined);
      withdraw = current.approval;
      return Promise.resolve({
        state: 'cancelled' as const,
        message: 'Cancelled by the client: the approval request was withdrawn.',
      });
    });
    if (!task) throw unknownTask(taskId);
    if (withdraw) await this.approvals.withdraw(withdraw);
  }

  /** Runs the claimed call once and keeps its result; a tool's error is a result too (isError). */
  private execute(task: ApprovalTask, approval: Approval): void {
    const run = (async () => {
      let change: Partial<ApprovalTask>;
      try {
        const input = this.inputs.get(task.id) ?? this.revalidated(task);
        const output = await this.runApproved(input, approval);
        change = {
          state: 'completed',
          message: `${task.tool} ran with the owner's yes.`,
          result: completeResult(successResult(output)),
        };
      } catch (error) {
        change = { state: 'completed', message: `${task.tool} failed.`, result: completeResult(errorResult(error)) };
      }
      await this.store.advance(task.id, () => Promise.resolve(change));
    })()
      .catch(() => undefined)
      .finally(() => {
        this.running.delete(task.id);
        this.inputs.delete(task.id);
      });
    this.running.set(task.id, run);
  }

  /** A task's input after a restart: read back from the file, it is checked again at this boundary. */
  private revalidated(task: ApprovalTask): ToolInput {
    const tool = this.catalogue.get(task.tool);
    const validation = tool ? validateInput(tool, task.arguments) : undefined;
    if (!validation?.ok) throw new WalletError('INTERNAL', `The kept call of task ${task.id} no longer validates.`);
    return validation.input;
  }

  /** Registers `tasks/get`, `tasks/update` and `tasks/cancel` on a server (declared in its capabilities). */
  register(server: Server): void {
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
      return this.get(params.taskId);
    });
    server.setRequestHandler(
      'tasks/update',
      // inputResponses is lifted out of params by the SDK (as on any request): only the task is named here.
      { params: TaskParams },
      async (params, context) => {
        gate(context);
        // No task of the wallet asks its client for input: responses are ignored, as the spec asks.
        if (!(await this.store.get(params.taskId))) throw unknownTask(params.taskId);
        return {};
      },
    );
    server.setRequestHandler('tasks/cancel', { params: TaskParams }, async (params, context) => {
      gate(context);
      await this.cancel(params.taskId);
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

/** A task as the wire shows it (`running` is `working` there: the client waits either way). */
function wireTask(task: ApprovalTask): Record<string, unknown> {
  return {
    taskId: task.id,
    status: task.state === 'running' ? 'working' : task.state,
    ...(task.message ? { statusMessage: task.message } : {}),
    createdAt: task.created,
    lastUpdatedAt: task.updated,
    ttlMs: TASK_TTL_MS,
    pollIntervalMs: POLL_INTERVAL_MS,
    ...(task.state === 'completed' && task.result ? { result: task.result } : {}),
    ...(task.state === 'failed' && task.error ? { error: task.error } : {}),
  };
}

function failed(
  code: 'POLICY_VIOLATION' | 'INTERNAL',
  message: string,
  { hint }: { hint: string },
): Partial<ApprovalTask> {
  return failedWith(new WalletError(code, message, { hint }));
}

function failedWith(error: WalletError): Partial<ApprovalTask> {
  const data: ToolErrorMeta = { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) };
  return {
    state: 'failed',
    message: error.message,
    error: { code: TASK_FAILED_CODE, message: error.message, data: { [ERROR_META_KEY]: data } },
  };
}

/** Whether the process that started a task's run is still alive (it may be another `wallet serve`). */
function alive(task: ApprovalTask): boolean {
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

import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  InsufficientScopeError,
  IssuerMismatchError,
  OAuthClientFlowError,
  OAuthError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type FetchLike,
  type PriorDiscovery,
  type RequestOptions,
  type Transport,
} from '@modelcontextprotocol/client';
import { CfWorkerJsonSchemaValidator } from '@modelcontextprotocol/client/validators/cf-worker';
import { z } from 'zod';
import { AsyncLocalStorage } from 'node:async_hooks';
import { formatWithOptions } from 'node:util';
import { systemFailureWords } from '../shared/system-errors.js';
import { packageInfo } from '../shared/package-info.js';
import { CONSENT_CAPABILITY, declaresConsent } from '../shared/protocol-meta.js';
import { invalidOAuthAnswerStatus, LoginFailedError, LoginRequiredError, withoutRawBody } from './oauth/errors.js';
import { serverEnvironment, stderrTail, type ServerProcess } from './stdio-child.js';
import { interposeTasks, isTask, TASKS_EXTENSION, type TaskFollower, type TaskOutcome } from './task-transport.js';
import type { LoginPrompt } from './oauth/login.js';
import {
  CallInterrupted,
  ClientRefusal,
  ConnectionError,
  RemoteProtocolError,
  type CallOptions,
  type EraVerdict,
  type ListedPrompt,
  type ListedResource,
  type ListedResourceTemplate,
  type ListedTool,
  type McpSession,
  type PromptMessages,
  type QuestionAnswerer,
  type ResourceContents,
  type ServerQuestion,
  type SessionEvents,
  type TaskState,
} from './session.js';
import type { JsonSchema } from '../shared/json-schema.js';

export { type EraVerdict, type ListedTool, type McpSession, type SessionEvents } from './session.js';

export type StdioServerCommand = {
  command: string;
  args: readonly string[];
  env?: Readonly<Record<string, string>> | undefined;
  /**
   * Where the server's stderr goes: ours (default), nowhere, or `capture`: kept out of the
   * output (start-up banners, npm warnings), its last lines told with a failure, and each line
   * handed to `SessionEvents.onServerStderr`.
   */
  stderr?: 'inherit' | 'ignore' | 'capture' | undefined;
};

/**
 * Speaks to any MCP server over stdio: one the CLI spawned already (`spawnServer`, in the era `prior`
 * names), else one spawned here, in the era `prior` names (remembered from an earlier run,
 * so no probe is spawned) or negotiating it. Closing the session ends the server's stdin and gives
 * it {@link SERVER_EXIT_GRACE_MS} to exit before it is signalled.
 */
export async function openStdioSession(
  server: StdioServerCommand,
  timeoutMs?: number,
  events: SessionEvents = {},
  prior?: EraVerdict,
  running?: ServerProcess,
): Promise<McpSession> {
  if (running && prior) {
    const { ChildProcessTransport } = await import('./child-transport.js');
    const transport = new ChildProcessTransport(running);
    try {
      return await connectSession(transport, {
        mode: 'auto',
        timeoutMs,
        events,
        prior,
        exitGrace: () => transport.pid,
        lastWords: running.lastWords,
      });
    } catch (error) {
      // The SDK may refuse a remembered era before it starts the transport, and then closes
      // nothing: the process is ended here (the caller connects afresh, or gives up).
      running.stop();
      throw error;
    }
  }
  // Imported here: the in-process session (client.ts's other user) never spawns a process.
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const capture = server.stderr === 'capture';
  const transport = new StdioClientTransport({
    command: server.command,
    args: [...server.args],
    env: serverEnvironment(server),
    stderr: server.stderr === 'capture' ? 'pipe' : (server.stderr ?? 'inherit'),
  });
  const tail = capture ? stderrTail(transport.stderr, events.onServerStderr) : undefined;
  return connectSession(transport, {
    mode: 'auto',
    timeoutMs,
    events,
    prior,
    exitGrace: () => transport.pid,
    ...(tail ? { lastWords: tail } : {}),
  });
}

export type HttpServerAddress = {
  url: URL;
  /** Sent with every request, e.g. `Authorization: Bearer …`. */
  headers?: Readonly<Record<string, string>> | undefined;
  /**
   * OAuth: the stored login of this URL (under `dataDir`) is used, refreshed and, through
   * `prompt`, started when the server asks for it. Unused when `headers` carry an Authorization.
   */
  oauth?: { dataDir: string; prompt: LoginPrompt } | undefined;
};

/** Connects to an MCP server over Streamable HTTP, in the era `prior` names or negotiating it. */
export async function openHttpSession(
  server: HttpServerAddress,
  timeoutMs?: number,
  events: SessionEvents = {},
  prior?: EraVerdict,
): Promise<McpSession> {
  const authorized = Object.keys(server.headers ?? {}).some((name) => name.toLowerCase() === 'authorization');
  // Loaded only for HTTP servers: a stdio session needs none of it.
  const oauth =
    server.oauth && !authorized
      ? await (async ({ dataDir, prompt }) => {
          const [{ OAuthSessionAuth }, { OAuthStore }] = await Promise.all([
            import('./oauth/login.js'),
            import('./oauth/store.js'),
          ]);
          return new OAuthSessionAuth(new OAuthStore(dataDir, server.url.href), prompt, server.url, timeoutMs);
        })(server.oauth)
      : undefined;
  // The server's headers go with requests to its own origin only: given as `requestInit`, the SDK
  // would merge them into the OAuth flow's requests too, to an authorization server elsewhere.
  const transport = new StreamableHTTPClientTransport(server.url, {
    fetch: withHeadersFor(server.url.origin, server.headers ?? {}, oauth ? oauth.resourceFetch(fetch) : fetch),
    ...(oauth ? { authProvider: oauth } : {}),
  });
  return connectSession(transport, {
    mode: 'auto',
    timeoutMs,
    events,
    prior,
    ...(oauth ? { stepUp: (challenge: InsufficientScopeError) => oauth.stepUp(challenge) } : {}),
  });
}

/**
 * `next`, adding `headers` to each request for `origin` (the request's own headers win, as the
 * SDK's `requestInit` merge has them); requests elsewhere go as they are.
 */
export function withHeadersFor(origin: string, headers: Readonly<Record<string, string>>, next: FetchLike): FetchLike {
  if (Object.keys(headers).length === 0) return next;
  return (url, init) => {
    if (new URL(String(url)).origin !== origin) return next(url, init);
    const merged = new Headers(headers);
    new Headers(init?.headers).forEach((value, name) => merged.set(name, value));
    return next(url, { ...init, headers: merged });
  };
}

/** How often one request may ask for more scope before the CLI gives up (the SDK's own default). */
const MAX_STEP_UPS = 3;

/**
 * How long a stdio server may take to exit once its stdin is closed, before it is sent SIGTERM.
 * The answer has been printed by then; a server with work left after it is rare, and waiting out
 * a slow exit was most of a `--server` run's time (docs/PERFORMANCE.md).
 */
const SERVER_EXIT_GRACE_MS = 50;

type SessionOptions = {
  /** `'legacy'`: the 2025 `initialize` handshake only; `'auto'`: probe for the 2026 era first. */
  mode: 'legacy' | 'auto';
  timeoutMs?: number | undefined;
  events?: SessionEvents | undefined;
  /** The era this server spoke last time: no probe, and for a modern one no round trip at all. */
  prior?: EraVerdict | undefined;
  /** The pid of a child server to signal when it is slow to exit after close. */
  exitGrace?: (() => number | null) | undefined;
  /** A 403 `insufficient_scope`: log in for more scope, after which the request is sent again. */
  stepUp?: ((challenge: InsufficientScopeError) => Promise<void>) | undefined;
  /** The last lines a captured server wrote to stderr: told with a connection failure. */
  lastWords?: (() => string) | undefined;
};

/** The SDK's `Client` over `transport`, as an {@link McpSession}; failures to connect are a {@link ConnectionError}. */
async function connectSession(transport: Transport, options: SessionOptions): Promise<McpSession> {
  const { mode, timeoutMs, events = {}, prior, exitGrace, stepUp, lastWords } = options;
  // A request the server refused for want of scope was not run: after a step-up it is sent again.
  // The SDK's notes during this session's work go to this session's sink (captureConsole).
  const sink = events.onLibraryMessage;
  const noted = <T>(call: () => Promise<T>): Promise<T> => (sink ? libraryNotes.run(sink, call) : call());
  const scoped = async <T>(call: () => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await noted(call);
      } catch (error) {
        if (!stepUp || !(error instanceof InsufficientScopeError) || attempt >= MAX_STEP_UPS) throw error;
        await noted(() => stepUp(error));
      }
    }
  };
  const saidLast = (): string => {
    const words = lastWords?.();
    return words ? ` (the server's stderr: ${words})` : '';
  };
  const { name, version } = packageInfo();
  const onChanged = events.onToolListChanged;
  if (sink) captureConsole(sink);
  const questions = events.questions;
  const elicitation = questions && elicitationCapability(questions);
  const client = new Client(
    { name, version },
    {
      versionNegotiation: { mode },
      // Declared only when someone can answer: a server that may not ask falls back to its own
      // way (the wallet's out-of-band approvals) instead of getting a blind refusal.
      // With it, `wallet/consent`: a person answers (the CLI asks nothing itself before a
      // destructive call of a server that confirms), so such a server asks on every such call.
      // The tasks extension always: a call answered with a task is followed (interposeTasks).
      capabilities: {
        extensions: { [TASKS_EXTENSION]: {} },
        ...(elicitation ? { elicitation, experimental: { [CONSENT_CAPABILITY]: {} } } : {}),
      },
      // Another server's result is checked against its output schema by the SDK's interpreting
      // validator: Ajv (the default) generates and compiles code for each schema, a third of a
      // `--server` call's time for one call (docs/PERFORMANCE.md).
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
      // The list is re-read by whoever needs it next; the notification only marks it stale.
      ...(onChanged
        ? { listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => onChanged() } } }
        : {}),
    },
  );
  if (questions && elicitation) {
    // Both eras: a 2025 server's `elicitation/create` request, and the questions a 2026-07-28
    // server embeds in an `input_required` result (the SDK answers them through this handler,
    // then retries with `inputResponses` and the server's `requestState` echoed).
    client.setRequestHandler('elicitation/create', async (request) => {
      const params = request.params;
      const question: ServerQuestion =
        params.mode === 'url'
          ? { mode: 'url', message: params.message, url: params.url }
          : { mode: 'form', message: params.message, requestedSchema: params.requestedSchema as JsonSchema };
      const answer = await questions.answer(question);
      return answer.action === 'accept' && answer.content !== undefined
        ? { action: 'accept', content: answer.content }
        : { action: answer.action };
    });
  }
  try {
    // The SDK gives each step of the handshake (an era probe, then initialize) the whole timeout;
    // the caller's bound is for the handshake as a whole.
    await withDeadline(
      scoped(() =>
        client.connect(transport, {
          ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
          ...(prior ? { prior: prior as PriorDiscovery } : {}),
        }),
      ),
      timeoutMs,
    );
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new ConnectionError(`Cannot connect to the MCP server: ${reason(error)}${saidLast()}`, {
      cause: error,
      hint: loginHint(error),
    });
  }
  // The tool call in progress (the CLI makes one at a time): how its task, if any, is followed.
  let active: ActiveCall | undefined;
  /**
   * The tasks whose last poll said `working`: the server may be running them (see close). By task,
   * not the session's last poll: the daemon's kept session is polled by many runs, and a poll of
   * another task that ended says nothing of one still running.
   */
  const working = new Set<string>();
  const getTask = async (taskId: string, options: CallOptions = {}): Promise<TaskState> => {
    const state = await translate(
      () =>
        scoped(() =>
          client.request({ method: 'tasks/get', params: { taskId } }, taskSchema(), requestOptions(options)),
        ),
      saidLast,
    );
    if (!isTask(state)) throw new ClientRefusal("the server's tasks/get result is not a task");
    if (state.status === 'working') working.add(taskId);
    else working.delete(taskId);
    return state;
  };
  const cancelTask = async (taskId: string, options: CallOptions = {}): Promise<void> => {
    await translate(
      () =>
        scoped(() =>
          client.request({ method: 'tasks/cancel', params: { taskId } }, z.looseObject({}), requestOptions(options)),
        ),
      saidLast,
    );
  };
  interposeTasks(transport, () => active && followTask(active, getTask, cancelTask));
  const info = client.getServerVersion();
  const discover = client.getDiscoverResult();
  return {
    server: { name: info?.name ?? 'unknown', version: info?.version ?? 'unknown' },
    era:
      client.getProtocolEra() === 'modern' && discover
        ? { kind: 'modern', discover: discover as Record<string, unknown> }
        : { kind: 'legacy' },
    confirmsDestructive: declaresConsent(client.getServerCapabilities()),
    serves: {
      resources: client.getServerCapabilities()?.resources !== undefined,
      prompts: client.getServerCapabilities()?.prompts !== undefined,
    },
    async listResources(options = {}) {
      // The SDK answers an empty list for a server that declares no resources, without asking.
      const [resources, templates] = await Promise.all([
        translate(() => scoped(() => client.listResources(undefined, requestOptions(options))), saidLast),
        translate(() => scoped(() => client.listResourceTemplates(undefined, requestOptions(options))), saidLast),
      ]);
      return {
        resources: resources.resources as ListedResource[],
        templates: templates.resourceTemplates as ListedResourceTemplate[],
      };
    },
    async readResource(uri, options = {}) {
      const result = await translate(
        () => scoped(() => client.readResource({ uri }, requestOptions(options))),
        saidLast,
      );
      return result.contents as ResourceContents[];
    },
    async listPrompts(options = {}) {
      const result = await translate(
        () => scoped(() => client.listPrompts(undefined, requestOptions(options))),
        saidLast,
      );
      return result.prompts as ListedPrompt[];
    },
    async getPrompt(promptName, args, options = {}) {
      const result = await translate(
        () => scoped(() => client.getPrompt({ name: promptName, arguments: args }, requestOptions(options))),
        saidLast,
      );
      return result as PromptMessages;
    },
    async listTools(options = {}) {
      const result = await translate(
        () => scoped(() => client.listTools(undefined, requestOptions(options))),
        saidLast,
      );
      return result.tools as ListedTool[];
    },
    getTask,
    cancelTask,
    async callTool(toolName, args, options = {}) {
      // The SDK's request is aborted only while no task runs: a task is cancelled with
      // tasks/cancel (by its follower), never with notifications/cancelled.
      const call: ActiveCall = { options, sdkAbort: new AbortController() };
      const onAbort = (): void => {
        if (!call.task) call.sdkAbort.abort(options.signal?.reason);
      };
      options.signal?.addEventListener('abort', onAbort, { once: true });
      active = call;
      let result: Awaited<ReturnType<typeof client.callTool>>;
      try {
        result = await translate(
          () =>
            scoped(() =>
              client.callTool(
                { name: toolName, arguments: args, ...(options.meta ? { _meta: options.meta } : {}) },
                requestOptions({ ...options, signal: options.signal ? call.sdkAbort.signal : undefined }),
              ),
            ),
          saidLast,
        );
      } catch (error) {
        if (call.detached) return { isError: false, content: [], task: call.detached };
        if (options.signal?.aborted === true) {
          throw new CallInterrupted(call.task ? `interrupted; ${cancelNote(call, call.task.taskId)}` : 'interrupted', {
            cause: error,
          });
        }
        if (call.task && call.cancel === undefined && !TASK_ENDS.has(call.task.status)) {
          // The call ended here (its overall timeout) with its task still running: cancel it, not
          // leave it working for no one, and say so.
          call.over = true;
          await cancelFor(call, call.task.taskId, cancelTask);
          if (error instanceof ConnectionError) {
            throw new ConnectionError(`${error.message}; ${cancelNote(call, call.task.taskId)}`, {
              cause: error,
              hint: error.hint,
            });
          }
        }
        throw error;
      } finally {
        options.signal?.removeEventListener('abort', onAbort);
        if (active === call) active = undefined;
      }
      return {
        isError: result.isError === true,
        structuredContent: result.structuredContent,
        content: result.content,
        _meta: result._meta,
      };
    },
    async close() {
      const pid = exitGrace?.();
      // A task left `working` may be running on the server (a `wallet serve` poll starts an
      // approved call's run): one SIGTERM asks it to finish and exit, and it is waited for before
      // the transport's own close, whose second signal would cut the run. Only for `wallet serve`
      // (its server name): another server gets the usual close, as one that ignores SIGTERM and
      // ends with its stdin (a container's PID 1 behind `docker run -i`) would hold the CLI for
      // minutes after every `tasks get` of its long jobs.
      const patient = working.size > 0 && client.getServerVersion()?.name === packageInfo().name;
      if (pid && patient) await exitPatiently(pid, events.onServerWait);
      // The SDK ends the child's stdin and waits up to 2 s for it to exit; a signal after the
      // grace ends that wait sooner.
      const timer = pid
        ? setTimeout(() => {
            try {
              process.kill(pid, 'SIGTERM');
            } catch {
              // Gone already.
            }
          }, SERVER_EXIT_GRACE_MS)
        : undefined;
      try {
        await client.close();
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/**
 * How long a stdio server left with a task `working` may take to exit after its SIGTERM: `wallet
 * serve`'s bound on the task runs it waits for (5 minutes), and some.
 */
const TASK_EXIT_GRACE_MS = 330_000;

/** How long a server left with a task `working` may take to exit before the wait is said on stderr. */
const TASK_EXIT_QUIET_MS = 1_000;

/**
 * Sends the server one SIGTERM and waits (at most {@link TASK_EXIT_GRACE_MS}) for it to exit; a
 * wait past {@link TASK_EXIT_QUIET_MS} is said on `say` (the server's own stderr is shown only
 * under --debug: without it, minutes of a silent CLI after its answer).
 */
async function exitPatiently(pid: number, say?: (line: string) => void): Promise<void> {
  const gone = (): boolean => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  };
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const start = Date.now();
  const end = start + TASK_EXIT_GRACE_MS;
  let said = false;
  while (!gone() && Date.now() < end) {
    if (!said && Date.now() - start >= TASK_EXIT_QUIET_MS) {
      said = true;
      say?.(
        `waiting up to ${TASK_EXIT_GRACE_MS / 1000} s for the server (pid ${pid}) to finish a task it said is working, and exit.`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The tool call in progress on a session, and what became of its task. */
type ActiveCall = {
  options: CallOptions;
  sdkAbort: AbortController;
  /** The task the server answered it with, once it did. */
  task?: TaskState | undefined;
  /** The caller chose not to wait: the call ends with this task. */
  detached?: TaskState | undefined;
  /** Whether the tasks/cancel this client sent for the task worked, or why it did not. */
  cancel?: { ok: true } | { ok: false; reason: string } | undefined;
  /** The call ended here (its overall timeout): its follower stops polling. */
  over?: boolean | undefined;
};

/** Sends tasks/cancel for the call's task, recording whether it worked (never throws). */
async function cancelFor(
  call: ActiveCall,
  taskId: string,
  cancelTask: (taskId: string, options?: CallOptions) => Promise<void>,
): Promise<void> {
  try {
    await cancelTask(taskId, { timeoutMs: call.options.timeoutMs });
    call.cancel = { ok: true };
  } catch (error) {
    call.cancel = { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}

/** What became of a task this client tried to cancel, for the caller's message. */
function cancelNote(call: ActiveCall, taskId: string): string {
  if (call.cancel?.ok === true) return `task ${taskId} was cancelled`;
  return `cancelling task ${taskId} failed${call.cancel ? ` (${call.cancel.reason})` : ''}: it may still run ('wallet tasks cancel ${taskId}' tries again)`;
}

/** A task's state as tasks/get answers it; checked further by `isTask`. */
function taskSchema(): z.ZodType<Record<string, unknown>> {
  return z.looseObject({ taskId: z.string(), status: z.string() });
}

/** The JSON-RPC error code the call fails with when it was detached or interrupted (the caller knows why). */
const CALL_ENDED_HERE = -32800;

/** The statuses a task ends in (input_required: this client stops following it there). */
const TASK_ENDS: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled', 'input_required']);

/** Polling bounds: a server's `pollIntervalMs` within these, 500 ms when it gives none. */
const POLL_MS = { min: 50, max: 5_000, otherwise: 500 };

/**
 * Follows the task a tool call was answered with (2026-07-28 tasks extension): tells the caller
 * at each change, polls `tasks/get` at the server's interval until the task ends, and answers
 * the call with its result, or its JSON-RPC error. An abort of the call's signal cancels the
 * task (`tasks/cancel`) first. A task waiting for input (`input_required`, answered with
 * `tasks/update`) is not followed further: this client sends none yet.
 */
function followTask(
  call: ActiveCall,
  getTask: (taskId: string, options?: CallOptions) => Promise<TaskState>,
  cancelTask: (taskId: string, options?: CallOptions) => Promise<void>,
): TaskFollower {
  return async (created, progress): Promise<TaskOutcome> => {
    const { onTask, signal, timeoutMs } = call.options;
    let task = created;
    call.task = task;
    let shown = '';
    for (;;) {
      const said = `${task.status}${task.statusMessage ? `: ${task.statusMessage}` : ''}`;
      if (said !== shown) {
        shown = said;
        if (onTask?.(task) === 'detach') {
          call.detached = task;
          return { kind: 'error', code: CALL_ENDED_HERE, message: `detached from task ${task.taskId}` };
        }
      }
      // At every poll, changed or not: progress also keeps the call's own timeout from firing.
      progress(said);
      if (task.status === 'completed') {
        return task.result
          ? { kind: 'result', result: task.result }
          : { kind: 'error', code: -32603, message: `task ${task.taskId} completed without a result` };
      }
      if (task.status === 'failed') {
        const code = typeof task.error?.code === 'number' ? task.error.code : -32603;
        const message = typeof task.error?.message === 'string' ? task.error.message : 'the task failed';
        return { kind: 'error', code, message: `task ${task.taskId} failed: ${message}` };
      }
      if (task.status === 'cancelled') {
        return { kind: 'error', code: -32603, message: `task ${task.taskId} was cancelled by the server` };
      }
      if (task.status === 'input_required') {
        return {
          kind: 'error',
          code: -32603,
          message: `task ${task.taskId} waits for input, which this client cannot send yet (tasks/update)`,
        };
      }
      const interval = Math.min(POLL_MS.max, Math.max(POLL_MS.min, task.pollIntervalMs ?? POLL_MS.otherwise));
      if (call.over === true) return { kind: 'error', code: CALL_ENDED_HERE, message: `task ${task.taskId} left` };
      if (await abortableSleep(interval, signal)) {
        await cancelFor(call, task.taskId, cancelTask);
        return { kind: 'error', code: CALL_ENDED_HERE, message: cancelNote(call, task.taskId) };
      }
      try {
        // The caller's signal too: Ctrl-C does not wait for a slow tasks/get to time out.
        task = await getTask(task.taskId, { timeoutMs, signal });
      } catch (error) {
        if (signal?.aborted !== true) throw error;
        await cancelFor(call, task.taskId, cancelTask);
        return { kind: 'error', code: CALL_ENDED_HERE, message: cancelNote(call, task.taskId) };
      }
      call.task = task;
    }
  };
}

/** Waits `ms`; true when `signal` aborted (at once, or meanwhile). */
function abortableSleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted === true) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', aborted);
      resolve(false);
    }, ms);
    const aborted = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    signal?.addEventListener('abort', aborted, { once: true });
  });
}

/** The sink of the session whose SDK work is running (connectSession's `scoped`), for captureConsole. */
const libraryNotes = new AsyncLocalStorage<(text: string) => void>();
/** The sink of the session that asked last, for a note made outside any session's work. */
let lastSink: ((text: string) => void) | undefined;

/**
 * Sends what the SDK prints with `console` to `sink`: its notes ("excluding tool …", "listTools()
 * called but …") would otherwise land on stdout among the results, on every call. Only the CLI,
 * whose own output never goes through `console`, asks for this. In the kept-alive servers'
 * daemon several sessions are open at once, their calls overlapping: a note goes to the sink of
 * the session whose request it comes from (each server's own log), not to the last one's.
 */
function captureConsole(sink: (text: string) => void): void {
  const first = lastSink === undefined;
  lastSink = sink;
  if (!first) return;
  // A note may quote an authorization server's answer (a failed refresh's cause): never its body.
  const write = (...args: unknown[]): void =>
    (libraryNotes.getStore() ?? lastSink)?.(withoutRawBody(formatWithOptions({ colors: false }, ...args)));
  // eslint-disable-next-line no-console -- replacing the SDK's console output is the point.
  for (const level of ['log', 'info', 'debug', 'warn', 'error'] as const) console[level] = write;
}

function elicitationCapability(
  questions: QuestionAnswerer,
): { form?: Record<string, never>; url?: Record<string, never> } | undefined {
  if (!questions.form && !questions.url) return undefined;
  return { ...(questions.form ? { form: {} } : {}), ...(questions.url ? { url: {} } : {}) };
}

function requestOptions({ timeoutMs, signal, onProgress }: CallOptions): RequestOptions {
  return {
    ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
    ...(signal ? { signal } : {}),
    ...(onProgress
      ? {
          onprogress: (progress: { progress: number; total?: number | undefined; message?: string | undefined }) =>
            onProgress(progress.message, progress.progress, progress.total),
          resetTimeoutOnProgress: true,
          // Progress keeps a call alive, but not for ever: a server may chatter without finishing.
          ...(timeoutMs === undefined ? {} : { maxTotalTimeout: timeoutMs * PROGRESS_TIMEOUT_FACTOR }),
        }
      : {}),
  };
}

/** SDK failures as ours: JSON-RPC errors stay protocol errors, the rest are connection errors. */
async function translate<T>(call: () => Promise<T>, saidLast: () => string): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProtocolError) throw new RemoteProtocolError(error.code, error.message);
    if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
      throw new ClientRefusal(`the server's result was rejected by this client: ${error.message}`, { cause: error });
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.CapabilityNotSupported) {
      // An `input_required` result asking for what this run cannot give (a question without a
      // terminal to ask on): the server was reached; the client cannot go on.
      throw new ClientRefusal(
        'the server asked a question, and this run has no terminal to ask it on (run it on one, or with --accept-defaults)',
        { cause: error },
      );
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.InputRequiredRoundsExceeded) {
      throw new ClientRefusal(`the server kept asking for input: ${error.message}`, { cause: error });
    }
    throw new ConnectionError(`${reason(error)}${saidLast()}`, { cause: error, hint: loginHint(error) });
  }
}

/** How much longer than its timeout a call that keeps reporting progress may take in all. */
const PROGRESS_TIMEOUT_FACTOR = 10;

async function withDeadline<T>(work: Promise<T>, timeoutMs: number | undefined): Promise<T> {
  if (timeoutMs === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new SdkError(SdkErrorCode.RequestTimeout, 'connect timed out')), timeoutMs);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Why a login failed, in one line (no attacker-controlled issuer or error text). */
export function describeLoginFailure(error: unknown): string {
  return reason(error);
}

function loginHint(error: unknown): string | undefined {
  if (error instanceof LoginRequiredError)
    return "The login opens a browser ($BROWSER), or prints the address to open elsewhere. A server that takes a fixed token wants --header 'Authorization: Bearer ${TOKEN}' instead.";
  if (error instanceof LoginFailedError || error instanceof OAuthError || error instanceof OAuthClientFlowError)
    return 'Log in again; if it keeps failing, the server or its authorization server is misconfigured.';
  return undefined;
}

function reason(error: unknown): string {
  if (error instanceof LoginRequiredError || error instanceof LoginFailedError) return error.message;
  // The `received` issuer of a redirect may be an attacker's text: not shown.
  if (error instanceof IssuerMismatchError)
    return `the OAuth login was refused: the ${error.kind === 'metadata' ? 'authorization server metadata' : 'redirect'} names another issuer (a mix-up defence)`;
  if (error instanceof InsufficientScopeError) return 'the server wants more OAuth scope than the login could get';
  if (error instanceof OAuthError || error instanceof OAuthClientFlowError) {
    const status = invalidOAuthAnswerStatus(error.message);
    return status === undefined
      ? `the OAuth login failed: ${withoutRawBody(error.message)}`
      : `the OAuth login failed: the authorization server answered HTTP ${status}, not an OAuth error`;
  }
  if (error instanceof UnauthorizedError) return 'the server requires authorization (HTTP 401): check --header';
  if (error instanceof SdkHttpError) {
    const hint = error.status === 401 || error.status === 403 ? ': check --header' : '';
    return `the server answered HTTP ${error.status}${hint}`;
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
    return 'the server did not answer in time';
  if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed)
    return 'the server closed the connection';
  if (error instanceof Error && 'code' in error && error.code === 'ENOENT') return 'the server command was not found';
  const unreachable = systemFailureWords(error);
  if (unreachable !== undefined) return `cannot reach it: ${unreachable}`;
  return error instanceof Error ? error.message : String(error);
}

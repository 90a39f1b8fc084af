/**
 * What the CLI knows of an MCP session without loading the SDK: the shapes of listed tools and
 * call results, the session interface and the two failures it reports. The SDK-backed sessions
 * are in client.ts, which the CLI imports only when it must talk to a server.
 */
import type { JsonSchema } from '../shared/json-schema.js';

/** A tool as tools/list describes it, read defensively (any server may answer). */
export type ListedTool = {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema | undefined;
  annotations?:
    | {
        readOnlyHint?: boolean | undefined;
        destructiveHint?: boolean | undefined;
        idempotentHint?: boolean | undefined;
        openWorldHint?: boolean | undefined;
      }
    | undefined;
  _meta?: Record<string, unknown> | undefined;
};

/**
 * A task (the 2026-07-28 tasks extension) as `CreateTaskResult` and `tasks/get` carry it, read
 * defensively: `status` is `working`, `input_required`, `completed`, `failed` or `cancelled`;
 * `result` comes with `completed`, `error` (a JSON-RPC error) with `failed`.
 */
export type TaskState = {
  taskId: string;
  status: string;
  statusMessage?: string | undefined;
  pollIntervalMs?: number | undefined;
  result?: Record<string, unknown> | undefined;
  error?: { code?: unknown; message?: unknown } | undefined;
};

export type ToolCallResult = {
  /** Set when the server answered with a task and the caller chose not to wait (`onTask`: 'detach'). */
  task?: TaskState | undefined;
  isError: boolean;
  structuredContent?: unknown;
  content: readonly { type: string; text?: string | undefined }[];
  _meta?: Record<string, unknown> | undefined;
};

/** A resource as resources/list describes it. */
export type ListedResource = {
  uri: string;
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  mimeType?: string | undefined;
  /** Its size in bytes, when the server says. */
  size?: number | undefined;
};

/** A resource template (RFC 6570 level 1-4 URI template) as resources/templates/list describes it. */
export type ListedResourceTemplate = {
  uriTemplate: string;
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  mimeType?: string | undefined;
};

/** One part of a resources/read answer: text, or bytes in base64 (`blob`). */
export type ResourceContents = {
  uri: string;
  mimeType?: string | undefined;
  text?: string | undefined;
  blob?: string | undefined;
};

/** A prompt as prompts/list describes it, with the arguments it takes (all strings). */
export type ListedPrompt = {
  name: string;
  title?: string | undefined;
  description?: string | undefined;
  arguments?: { name: string; description?: string | undefined; required?: boolean | undefined }[] | undefined;
};

/** A prompt's messages, as prompts/get returns them. */
export type PromptMessages = {
  description?: string | undefined;
  messages: { role: string; content: { type: string; text?: string | undefined; [key: string]: unknown } }[];
};

export type CallOptions = {
  timeoutMs?: number | undefined;
  /**
   * The request's `_meta` (tools/call only): what a protocol extension carries beside the
   * arguments, such as an x402 payment (`x402/payment`).
   */
  meta?: Record<string, unknown> | undefined;
  signal?: AbortSignal | undefined;
  /** Asks the server for progress notifications of this call; each one resets the timeout. */
  onProgress?: ((message: string | undefined, progress: number, total: number | undefined) => void) | undefined;
  /**
   * The server answered the call with a task: told when it is made and at each poll. Answering
   * 'detach' ends the call there (its result holds the task); otherwise it is followed to its
   * end, and an abort of `signal` cancels it (`tasks/cancel`) before the call fails with
   * {@link CallInterrupted}.
   */
  onTask?: ((task: TaskState) => 'detach' | undefined) | undefined;
};

/** What a session tells its owner besides answers to its requests. */
export type SessionEvents = {
  /** The server said its tool list changed (`notifications/tools/list_changed`). */
  onToolListChanged?: (() => void) | undefined;
  /**
   * What the SDK prints with `console` (`console.debug` goes to stdout, which is the result's):
   * every line comes here instead, for the owner to show (under --debug) or drop.
   */
  onLibraryMessage?: ((text: string) => void) | undefined;
  /** Each line a spawned server writes to its stderr, when that is captured. */
  onServerStderr?: ((line: string) => void) | undefined;
  /**
   * Said once when closing waits on a stdio server left with a task `working` (it may be running
   * it): the answer is out and the process goes on for a while, so the user is told why (stderr).
   */
  onServerWait?: ((line: string) => void) | undefined;
  /** Who answers the server's questions (elicitation); without it the client declares none. */
  questions?: QuestionAnswerer | undefined;
};

/**
 * A question from the server (`elicitation/create`, or an `input_required` result's embedded
 * one): a form of flat fields (`requestedSchema`), or a URL for the user to open.
 */
export type ServerQuestion =
  { mode: 'form'; message: string; requestedSchema: JsonSchema } | { mode: 'url'; message: string; url: string };

/** The user's answer, as elicitation's result: `content` only with `accept` on a form. */
export type QuestionAnswer = {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, string | number | boolean | string[]> | undefined;
};

/** The modes a client can answer (declared as its elicitation capability) and the answering. */
export type QuestionAnswerer = {
  form: boolean;
  url: boolean;
  answer(question: ServerQuestion): Promise<QuestionAnswer>;
};

/**
 * The protocol era a server spoke (the SDK's `PriorDiscovery`): a 2025-era `initialize` server,
 * or a 2026-07-28 one with its `server/discover` result. Remembered per server, so the next
 * connection skips the probe.
 */
export type EraVerdict = { kind: 'legacy' } | { kind: 'modern'; discover: Record<string, unknown> };

/** One connection to one MCP server, whatever the transport. */
export type McpSession = {
  readonly server: { name: string; version: string };
  /** The era this connection speaks. */
  readonly era: EraVerdict;
  /**
   * The server declared (capability `experimental["wallet/consent"]`) that it puts every
   * destructive call to its own human check: a question to this client's user, an owner's
   * approval, or the autonomy its owner's policy grants. The CLI then asks nothing itself.
   */
  readonly confirmsDestructive: boolean;
  /** What the server declared it serves besides tools (its `resources` and `prompts` capabilities). */
  readonly serves: { resources: boolean; prompts: boolean };
  listTools(options?: CallOptions): Promise<ListedTool[]>;
  /** Every resource and resource template (all pages). */
  listResources(options?: CallOptions): Promise<{ resources: ListedResource[]; templates: ListedResourceTemplate[] }>;
  readResource(uri: string, options?: CallOptions): Promise<ResourceContents[]>;
  listPrompts(options?: CallOptions): Promise<ListedPrompt[]>;
  getPrompt(name: string, args: Record<string, string>, options?: CallOptions): Promise<PromptMessages>;
  /** A task's state (`tasks/get`): with its result once completed. */
  getTask(taskId: string, options?: CallOptions): Promise<TaskState>;
  /** Asks the server to cancel a task (`tasks/cancel`). */
  cancelTask(taskId: string, options?: CallOptions): Promise<void>;
  callTool(name: string, args: Record<string, unknown>, options?: CallOptions): Promise<ToolCallResult>;
  close(): Promise<void>;
};

/** The server cannot be reached, died, did not answer in time, or wants a login: the CLI's exit 3. */
export class ConnectionError extends Error {
  override name = 'ConnectionError';
  /** What to do about it, where the failure knows better than "check the server". */
  readonly hint: string | undefined;

  constructor(message: string, options: ErrorOptions & { hint?: string | undefined } = {}) {
    super(message, options);
    this.hint = options.hint;
  }
}

/**
 * The client could not go on with a request the server answered: a question this run cannot
 * answer (no handler for it), a result the client's own checks reject. Not a connection failure
 * and not the server's refusal: the CLI's exit 1.
 */
export class ClientRefusal extends Error {
  override name = 'ClientRefusal';
}

/** The user interrupted a call (Ctrl-C); a task it made was cancelled first. The CLI's exit 130. */
export class CallInterrupted extends Error {
  override name = 'CallInterrupted';
}

/** The server answered a request with a JSON-RPC error (e.g. an unknown tool). */
export class RemoteProtocolError extends Error {
  override name = 'RemoteProtocolError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

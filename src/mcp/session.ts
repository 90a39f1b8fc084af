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

export type ToolCallResult = {
  isError: boolean;
  structuredContent?: unknown;
  content: readonly { type: string; text?: string | undefined }[];
  _meta?: Record<string, unknown> | undefined;
};

export type CallOptions = {
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Asks the server for progress notifications of this call; each one resets the timeout. */
  onProgress?: ((message: string | undefined, progress: number, total: number | undefined) => void) | undefined;
};

/** What a session tells its owner besides answers to its requests. */
export type SessionEvents = {
  /** The server said its tool list changed (`notifications/tools/list_changed`). */
  onToolListChanged?: (() => void) | undefined;
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
  listTools(options?: CallOptions): Promise<ListedTool[]>;
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

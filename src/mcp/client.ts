import {
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type RequestOptions,
  type Transport,
} from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { tuneForOneShotProcess } from '../domain/one-shot.js';
import { packageInfo } from '../shared/package-info.js';
import { createWalletServer } from './server.js';
import {
  ConnectionError,
  RemoteProtocolError,
  type CallOptions,
  type ListedTool,
  type McpSession,
  type SessionEvents,
} from './session.js';
import { walletServerOptions, type WalletServerSetup } from './setup.js';

export {
  ConnectionError,
  RemoteProtocolError,
  type CallOptions,
  type ListedTool,
  type McpSession,
  type SessionEvents,
  type ToolCallResult,
} from './session.js';

/**
 * Connects to the wallet's own server in this process, over an in-memory transport: the full MCP
 * path (handshake, tools/list, tools/call) without a child process. Local-only tools are served
 * here, and only here. The process is taken to be a short one (a CLI command): see
 * {@link tuneForOneShotProcess}.
 */
export async function openInProcessSession(
  setup: Omit<WalletServerSetup, 'localOnly' | 'readOnly'> = {},
): Promise<McpSession> {
  tuneForOneShotProcess();
  const server = createWalletServer(
    walletServerOptions({ ...setup, localOnly: true, readOnly: false, profile: 'full' }),
  );
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  return connectSession(clientSide, 'legacy', undefined, {});
}

export type StdioServerCommand = {
  command: string;
  args: readonly string[];
  env?: Readonly<Record<string, string>> | undefined;
  /** Where the server's stderr goes: ours (default) or nowhere. */
  stderr?: 'inherit' | 'ignore' | undefined;
};

/** Spawns any MCP server speaking stdio and connects to it, negotiating the protocol era. */
export async function openStdioSession(
  server: StdioServerCommand,
  timeoutMs?: number,
  events: SessionEvents = {},
): Promise<McpSession> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  Object.assign(env, server.env);
  const transport = new StdioClientTransport({
    command: server.command,
    args: [...server.args],
    env,
    stderr: server.stderr ?? 'inherit',
  });
  return connectSession(transport, 'auto', timeoutMs, events);
}

export type HttpServerAddress = {
  url: URL;
  /** Sent with every request, e.g. `Authorization: Bearer …`. */
  headers?: Readonly<Record<string, string>> | undefined;
};

/** Connects to an MCP server over Streamable HTTP, negotiating the protocol era. */
export async function openHttpSession(
  server: HttpServerAddress,
  timeoutMs?: number,
  events: SessionEvents = {},
): Promise<McpSession> {
  const transport = new StreamableHTTPClientTransport(server.url, {
    requestInit: { headers: { ...server.headers } },
  });
  return connectSession(transport, 'auto', timeoutMs, events);
}

async function connectSession(
  transport: Transport,
  mode: 'legacy' | 'auto',
  timeoutMs: number | undefined,
  events: SessionEvents,
): Promise<McpSession> {
  const { name, version } = packageInfo();
  const onChanged = events.onToolListChanged;
  const client = new Client(
    { name, version },
    {
      versionNegotiation: { mode },
      // The list is re-read by whoever needs it next; the notification only marks it stale.
      ...(onChanged
        ? { listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged: () => onChanged() } } }
        : {}),
    },
  );
  try {
    // The SDK gives each step of the handshake (an era probe, then initialize) the whole timeout;
    // the caller's bound is for the handshake as a whole.
    await withDeadline(
      client.connect(transport, timeoutMs === undefined ? undefined : { timeout: timeoutMs }),
      timeoutMs,
    );
  } catch (error) {
    await client.close().catch(() => undefined);
    throw new ConnectionError(`Cannot connect to the MCP server: ${reason(error)}`, { cause: error });
  }
  const info = client.getServerVersion();
  return {
    server: { name: info?.name ?? 'unknown', version: info?.version ?? 'unknown' },
    async listTools(options = {}) {
      const result = await translate(() => client.listTools(undefined, requestOptions(options)));
      return result.tools as ListedTool[];
    },
    async callTool(toolName, args, options = {}) {
      const result = await translate(() =>
        client.callTool({ name: toolName, arguments: args }, requestOptions(options)),
      );
      return {
        isError: result.isError === true,
        structuredContent: result.structuredContent,
        content: result.content,
        _meta: result._meta,
      };
    },
    close: () => client.close(),
  };
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
async function translate<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof ProtocolError) throw new RemoteProtocolError(error.code, error.message);
    if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
      throw new RemoteProtocolError(-32603, `The server sent an invalid result: ${error.message}`);
    }
    throw new ConnectionError(reason(error), { cause: error });
  }
}

/** How much longer than its timeout a call that keeps reporting progress may take in all. */
export const PROGRESS_TIMEOUT_FACTOR = 10;

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

function reason(error: unknown): string {
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
  return error instanceof Error ? error.message : String(error);
}

import { LATEST_PROTOCOL_VERSION, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/server';
import { packageInfo } from '../shared/package-info.js';
import { declaresConsent } from '../shared/protocol-meta.js';
import {
  ClientRefusal,
  ConnectionError,
  RemoteProtocolError,
  type CallOptions,
  type ListedPrompt,
  type ListedResource,
  type ListedResourceTemplate,
  type ListedTool,
  type McpSession,
  type PromptMessages,
  type ResourceContents,
  type TaskState,
} from './session.js';

/** How much longer than its timeout a call that keeps reporting progress may take in all (as client.ts). */
const PROGRESS_TIMEOUT_FACTOR = 10;

/** JSON-RPC's "method not found": the answer to a server request this client does not serve. */
const METHOD_NOT_FOUND = -32601;

type Pending = {
  resolve: (result: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  onProgress: CallOptions['onProgress'];
  /** Restarts the timeout (on progress); undefined without one. */
  rearm: (() => void) | undefined;
  clear: () => void;
};

/**
 * The CLI's client of its own server, over the in-memory transport: JSON-RPC requests and their
 * answers, nothing more. The server's MCP request handling (the `initialize` handshake,
 * tools/list, tools/call with its input validation, confirmation and audit) is the same as for
 * any client; what this skips is the SDK `Client`'s own machinery (its protocol schemas, which
 * check each answer again, capability bookkeeping, era negotiation): a third of a one-shot
 * call's start-up for a server whose answers `invokeValidated` has already checked
 * (docs/PERFORMANCE.md). It declares no capabilities, so the server asks no questions (the CLI
 * confirms destructive calls itself); a request the server sends anyway is refused as unknown.
 */
export async function connectInProcess(transport: Transport): Promise<McpSession> {
  const caller = new JsonRpcCaller(transport);
  await transport.start();
  const { name, version } = packageInfo();
  const initialized = await caller.request('initialize', {
    protocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: {},
    clientInfo: { name, version },
  });
  const info = initialized['serverInfo'];
  if (!isRecord(info) || typeof info['name'] !== 'string' || typeof initialized['protocolVersion'] !== 'string') {
    throw new ConnectionError('Cannot connect to the MCP server: its initialize result is malformed');
  }
  await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const capabilities = isRecord(initialized['capabilities']) ? initialized['capabilities'] : {};
  /** The array `key` of `method`'s answer (its own server: one page, checked by shape only). */
  const listed = async (method: string, key: string, options: CallOptions): Promise<unknown[]> => {
    const result = await caller.request(method, {}, options);
    const items = result[key];
    if (!Array.isArray(items)) throw new ClientRefusal(`the server's ${method} result has no ${key} array`);
    return items as unknown[];
  };
  return {
    server: { name: info['name'], version: typeof info['version'] === 'string' ? info['version'] : 'unknown' },
    era: { kind: 'legacy' },
    // The built-in server runs as its owner's and declares no consent of its own (false).
    confirmsDestructive: declaresConsent(
      isRecord(initialized['capabilities']) ? initialized['capabilities'] : undefined,
    ),
    serves: { resources: capabilities['resources'] !== undefined, prompts: capabilities['prompts'] !== undefined },
    async listResources(options = {}) {
      return {
        resources: (await listed('resources/list', 'resources', options)) as ListedResource[],
        templates: (await listed('resources/templates/list', 'resourceTemplates', options)) as ListedResourceTemplate[],
      };
    },
    async readResource(uri, options = {}) {
      const result = await caller.request('resources/read', { uri }, options);
      if (!Array.isArray(result['contents']))
        throw new ClientRefusal("the server's resources/read result has no contents");
      return result['contents'] as ResourceContents[];
    },
    async listPrompts(options = {}) {
      return (await listed('prompts/list', 'prompts', options)) as ListedPrompt[];
    },
    async getPrompt(promptName, args, options = {}) {
      const result = await caller.request('prompts/get', { name: promptName, arguments: args }, options);
      if (!Array.isArray(result['messages']))
        throw new ClientRefusal("the server's prompts/get result has no messages");
      return result as PromptMessages;
    },
    async getTask(taskId, options = {}) {
      const result = await caller.request('tasks/get', { taskId }, options);
      if (typeof result['taskId'] !== 'string' || typeof result['status'] !== 'string')
        throw new ClientRefusal("the server's tasks/get result is not a task");
      return result as TaskState;
    },
    async cancelTask(taskId, options = {}) {
      await caller.request('tasks/cancel', { taskId }, options);
    },
    async listTools(options = {}) {
      const result = await caller.request('tools/list', {}, options);
      const tools = result['tools'];
      if (!Array.isArray(tools)) throw new ClientRefusal("the server's tools/list result has no tool array");
      return tools as ListedTool[];
    },
    async callTool(toolName, args, options = {}) {
      const result = await caller.request('tools/call', { name: toolName, arguments: args }, options);
      const content = result['content'];
      if (!Array.isArray(content)) throw new ClientRefusal("the server's tools/call result has no content array");
      return {
        isError: result['isError'] === true,
        structuredContent: result['structuredContent'],
        content: content as { type: string; text?: string }[],
        _meta: isRecord(result['_meta']) ? result['_meta'] : undefined,
      };
    },
    async close() {
      caller.failAll(new ConnectionError('the session was closed'));
      await transport.close();
    },
  };
}

class JsonRpcCaller {
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly transport: Transport) {
    transport.onmessage = (message: JSONRPCMessage) => this.receive(message);
    transport.onclose = () => this.failAll(new ConnectionError('the in-process server closed the connection'));
  }

  request(
    method: string,
    params: Record<string, unknown>,
    options: CallOptions = {},
  ): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const { timeoutMs, onProgress } = options;
    return new Promise((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let lastTimer: NodeJS.Timeout | undefined;
      const clear = (): void => {
        clearTimeout(timer);
        clearTimeout(lastTimer);
        this.pending.delete(id);
      };
      const timedOut = (): void => {
        clear();
        // The server is told (MCP's cancellation) and stops where it can; its late answer is dropped.
        void this.transport
          .send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: 'timed out' } })
          .catch(() => undefined);
        // The built-in server: no command or URL to check, only the time given.
        reject(
          new ConnectionError('the server did not answer in time', {
            hint: `It had ${timeoutMs ?? 0} ms: give it longer with --timeout <ms>.`,
          }),
        );
      };
      const rearm =
        timeoutMs === undefined
          ? undefined
          : () => {
              clearTimeout(timer);
              timer = setTimeout(timedOut, timeoutMs);
            };
      rearm?.();
      if (timeoutMs !== undefined && onProgress) lastTimer = setTimeout(timedOut, timeoutMs * PROGRESS_TIMEOUT_FACTOR);
      this.pending.set(id, { resolve, reject, onProgress, rearm, clear });
      const withProgress = onProgress ? { ...params, _meta: { progressToken: id } } : params;
      this.transport.send({ jsonrpc: '2.0', id, method, params: withProgress }).catch((error: unknown) => {
        clear();
        reject(new ConnectionError(`the in-process server could not be reached: ${String(error)}`, { cause: error }));
      });
    });
  }

  failAll(error: Error): void {
    for (const pending of [...this.pending.values()]) {
      pending.clear();
      pending.reject(error);
    }
  }

  private receive(message: JSONRPCMessage): void {
    const fields = message as Record<string, unknown>;
    const id = fields['id'];
    if (typeof fields['method'] === 'string') {
      if (id !== undefined) this.refuse(id);
      else if (fields['method'] === 'notifications/progress') this.progress(fields['params']);
      return;
    }
    const pending = typeof id === 'number' ? this.pending.get(id) : undefined;
    if (!pending) return;
    pending.clear();
    const error = fields['error'];
    if (isRecord(error)) {
      const code = typeof error['code'] === 'number' ? error['code'] : 0;
      pending.reject(new RemoteProtocolError(code, String(error['message'])));
    } else if (isRecord(fields['result'])) pending.resolve(fields['result']);
    else pending.reject(new ClientRefusal('the server answered with neither a result nor an error'));
  }

  private progress(params: unknown): void {
    if (!isRecord(params) || typeof params['progressToken'] !== 'number') return;
    const pending = this.pending.get(params['progressToken']);
    if (!pending?.onProgress || typeof params['progress'] !== 'number') return;
    pending.rearm?.();
    const total = typeof params['total'] === 'number' ? params['total'] : undefined;
    pending.onProgress(
      typeof params['message'] === 'string' ? params['message'] : undefined,
      params['progress'],
      total,
    );
  }

  private refuse(id: unknown): void {
    void this.transport
      .send({
        jsonrpc: '2.0',
        id: id as string | number,
        error: { code: METHOD_NOT_FOUND, message: 'this client serves no requests' },
      })
      .catch(() => undefined);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

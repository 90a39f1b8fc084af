/**
 * A 2026-07-28 MCP client with the tasks extension (`@modelcontextprotocol/ext-tasks`'s
 * requester) against a spawned `wallet serve`, over stdio or stateless Streamable HTTP, and what
 * tests of tasks read off it: the task of an execution, the approval in its status, the sender's
 * transaction count on the node.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import {
  withTasks,
  type ConnectedMcpSessionPort,
  type JsonRpcResponse,
  type TaskEnabledSession,
} from '@modelcontextprotocol/ext-tasks/client';
import type { JsonValue, TaskId } from '@modelcontextprotocol/ext-tasks/core';
import type { AnvilNode } from './anvil.js';
import { startHttpServe, type HttpServe } from './http-serve.js';
import { WALLET_BIN } from './paths.js';

export const TASKS = 'io.modelcontextprotocol/tasks';
/** The bearer token `serve --http` is started with (what the agent's configuration would hold). */
const API_KEY = 'tasks-test-bearer-token-0123456789abcdefghij';

/** The `wallet serve` a requester talks to: its data directory, node and keystore passphrase file. */
export type ServeOptions = { home: string; node: AnvilNode; passphraseFile: string; apiKey?: string };

/** A request as a 2026-07-28 client frames it: the per-request envelope declares the tasks extension. */
function framed(id: number, request: JsonValue): { method: string; body: Record<string, JsonValue> } {
  const { method, params } = request as { method: string; params?: Record<string, JsonValue> };
  return {
    method,
    body: {
      jsonrpc: '2.0',
      id,
      method,
      params: {
        ...params,
        _meta: {
          ...(params?.['_meta'] as Record<string, JsonValue> | undefined),
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'tasks-requester', version: '1' },
          'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
        },
      },
    },
  };
}

/** A JSON-RPC answer as the requester reads it. */
function answered(message: { result?: JsonValue; error?: { code: number; message: string } }): JsonRpcResponse {
  return message.error ? { kind: 'error', error: message.error } : { kind: 'result', result: message.result ?? null };
}

/**
 * `wallet serve` as a raw 2026-07-28 peer: the port the requester drives (the SDK client's codec
 * does not carry task results). Server-to-client traffic is none: the wallet's tasks ask nothing.
 */
export abstract class RawPort implements ConnectedMcpSessionPort {
  readonly endpointId = 'wallet-serve';
  readonly taskCapabilities = { generation: 'v2' as const, capabilities: {} };
  invalidated = false;
  protected nextId = 1;
  abstract dispatch(request: JsonValue): Promise<JsonRpcResponse>;
  abstract close(): Promise<void>;
  /** Kills serve at once (SIGKILL), as a crash or an OOM kill would stop it, and waits for its exit. */
  abstract kill(): Promise<void>;
  /** What serve said on stderr so far (its approval-page links among it). */
  abstract stderr(): string;
  onServerRequest(): () => void {
    return () => undefined;
  }
  onNotification(): () => void {
    return () => undefined;
  }
  onInvalidated(): () => void {
    return () => undefined;
  }
}

/** Over stdio: `wallet serve` spawned, one JSON-RPC message a line. */
export class StdioPort extends RawPort {
  private readonly child: ChildProcessByStdio<Writable, Readable, Readable>;
  private readonly waiting = new Map<number, (response: JsonRpcResponse) => void>();
  private buffer = '';

  private said = '';

  constructor({ home, node, passphraseFile }: ServeOptions) {
    super();
    this.child = spawn(process.execPath, [WALLET_BIN, 'serve', '--passphrase-file', passphraseFile], {
      env: { ...process.env, WALLET_HOME: home, WALLET_EVM_LOCAL_URL: node.url },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stderr.on('data', (chunk: Buffer) => (this.said += chunk.toString()));
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString();
      for (let end = this.buffer.indexOf('\n'); end >= 0; end = this.buffer.indexOf('\n')) {
        const message = JSON.parse(this.buffer.slice(0, end)) as {
          id?: number;
          result?: JsonValue;
          error?: { code: number; message: string };
        };
        this.buffer = this.buffer.slice(end + 1);
        if (typeof message.id !== 'number') continue;
        this.waiting.get(message.id)?.(answered(message));
        this.waiting.delete(message.id);
      }
    });
  }

  dispatch(request: JsonValue): Promise<JsonRpcResponse> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.child.stdin.write(`${JSON.stringify(framed(id, request).body)}\n`);
    });
  }

  stderr(): string {
    return this.said;
  }

  async close(): Promise<void> {
    this.invalidated = true;
    this.child.stdin.end();
    await new Promise((resolve) => this.child.once('exit', resolve));
  }

  async kill(): Promise<void> {
    this.invalidated = true;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await exited;
  }

  /** Sends serve a signal (SIGTERM, as a service manager stops it), leaving its stdin open. */
  signal(name: NodeJS.Signals): void {
    this.child.kill(name);
  }

  /** Resolves with serve's exit code (null: ended by a signal) once it has exited. */
  exited(): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve(this.child.exitCode);
    return new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }
}

/** Over Streamable HTTP: `wallet serve --http`, stateless 2026-07-28 POSTs with the routing headers. */
export class HttpPort extends RawPort {
  private constructor(
    private readonly served: HttpServe,
    private readonly apiKey: string,
  ) {
    super();
  }

  static async start({ home, node, passphraseFile, apiKey = API_KEY }: ServeOptions): Promise<HttpPort> {
    const served = await startHttpServe(['--passphrase-file', passphraseFile], {
      home,
      env: { WALLET_EVM_LOCAL_URL: node.url, MCP_API_KEY: apiKey },
    });
    return new HttpPort(served, apiKey);
  }

  /** A port on a `serve --http` started elsewhere (a replica of test/helpers/replicas.ts); closing it stops that serve. */
  static over(served: HttpServe, apiKey: string): HttpPort {
    return new HttpPort(served, apiKey);
  }

  stderr(): string {
    return this.served.stderr();
  }

  async dispatch(request: JsonValue): Promise<JsonRpcResponse> {
    const { method, body } = framed(this.nextId++, request);
    const params = body['params'] as Record<string, JsonValue>;
    const name = params['taskId'] ?? params['name'];
    const response = await fetch(this.served.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${this.apiKey}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    // A JSON body, or an event stream whose last data line is the answer.
    const data = response.headers.get('content-type')?.includes('text/event-stream')
      ? (text
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .at(-1)
          ?.slice(6) ?? '')
      : text;
    return answered(JSON.parse(data) as { result?: JsonValue; error?: { code: number; message: string } });
  }

  async close(): Promise<void> {
    this.invalidated = true;
    await this.served.stop();
  }

  async kill(): Promise<void> {
    this.invalidated = true;
    this.served.child.kill('SIGKILL');
    await this.served.stop();
  }
}

export type Transport = 'stdio' | 'http';

/**
 * A tasks requester (`@modelcontextprotocol/ext-tasks`) on its own `wallet serve` over `transport`,
 * once serve has declared the tasks extension in `server/discover`.
 */
export async function requester(
  transport: Transport,
  options: ServeOptions,
): Promise<{ session: TaskEnabledSession; port: RawPort }> {
  const port = transport === 'stdio' ? new StdioPort(options) : await HttpPort.start(options);
  const discovered = await port.dispatch({ method: 'server/discover', params: {} });
  assert.equal(discovered.kind, 'result');
  const capabilities = (discovered.result as { capabilities: { extensions?: Record<string, unknown> } }).capabilities;
  assert.ok(capabilities.extensions?.[TASKS], 'the server declares the tasks extension');
  return { session: withTasks(port), port };
}

export const approvalIn = (message: string | undefined): string => {
  const id = /ap-[a-z2-7]{10}/.exec(message ?? '')?.[0];
  assert.ok(id, `no approval id in ${message}`);
  return id;
};

export async function transactionsFrom(node: AnvilNode, address: string): Promise<bigint> {
  const response = await fetch(node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionCount', params: [address, 'latest'] }),
  });
  return BigInt(((await response.json()) as { result: string }).result);
}

/** The task id of an execution the server made a task of. */
export function taskOf(execution: { kind: string; handle?: { taskId: TaskId } | undefined }): TaskId {
  assert.equal(execution.kind, 'task', 'the call became a task');
  assert.ok(execution.handle);
  return execution.handle.taskId;
}

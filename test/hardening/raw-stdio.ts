import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { WALLET_BIN } from '../helpers/paths.js';

export type RequestId = string | number;

/** One line the server wrote to stdout: its text, and the JSON it holds (when it is JSON). */
export type StdoutLine = { index: number; text: string; json: unknown; parsed: boolean };

/** What a JSON-RPC response looks like once it is known to be one. */
export type Reply = {
  jsonrpc: '2.0';
  id: RequestId | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

/**
 * `wallet serve` spawned with raw pipes, for feeding it bytes no client would send. Unlike
 * test/helpers/spawned.ts it never throws on a stdout line that is not JSON: it records it, so a
 * test can assert that none ever appeared. It also samples the child's resident memory.
 */
export class RawServe {
  readonly child: ChildProcessWithoutNullStreams;
  readonly lines: StdoutLine[] = [];
  stderr = '';
  /** The largest VmRSS seen by {@link sample}, in MiB. */
  peakRssMiB = 0;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private waiters: (() => void)[] = [];
  private partial = '';
  private sampler: ReturnType<typeof setInterval> | undefined;

  constructor(args: string[], env: Record<string, string>, nodeFlags: string[] = []) {
    this.child = spawn(process.execPath, [...nodeFlags, WALLET_BIN, ...args], {
      env: { PATH: process.env['PATH'] ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child.stdin.on('error', () => undefined);
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString()));
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.onStdout(chunk));
    this.exited = new Promise((resolve) =>
      this.child.on('exit', (code, signal) => {
        this.exit = { code, signal };
        this.stopSampling();
        this.wake();
        resolve({ code, signal });
      }),
    );
  }

  /** Writes raw bytes (nothing is added: the caller decides the line ends). */
  async write(bytes: Buffer | string): Promise<void> {
    if (this.child.stdin.write(bytes)) return;
    await new Promise<void>((resolve) => this.child.stdin.once('drain', resolve));
  }

  /** Writes a message as one JSON line. */
  send(message: unknown, ending = '\n'): Promise<void> {
    return this.write(JSON.stringify(message) + ending);
  }

  /** The replies (id and result/error, no method) among the lines from `from` on. */
  repliesSince(from: number): Reply[] {
    return this.lines.slice(from).flatMap((line) => (isReply(line.json) ? [line.json] : []));
  }

  /** Waits until a reply with this id has been written (from line `from` on), or `ms` pass. */
  async reply(id: RequestId, ms = 10_000, from = 0): Promise<Reply> {
    const found = await this.until(() => this.repliesSince(from).find((reply) => sameId(reply.id, id)), ms);
    if (!found) {
      throw new Error(
        `no reply to id ${JSON.stringify(id)} within ${ms} ms${this.exit ? ` (exited ${JSON.stringify(this.exit)})` : ''}; stderr: ${this.stderr.slice(0, 2000)}`,
      );
    }
    return found;
  }

  /** Polls `probe` on every new line (and every 50 ms) until it returns something, or `ms` pass. */
  async until<T>(probe: () => T | undefined, ms: number): Promise<T | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline || this.exit) return probe();
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** VmRSS of the child from /proc, in MiB; undefined once it is gone. */
  rssMiB(): number | undefined {
    try {
      const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
      const kib = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
      return kib === undefined ? undefined : Number(kib) / 1024;
    } catch {
      return undefined;
    }
  }

  /** Samples VmRSS every `ms` into {@link peakRssMiB} until the child exits or {@link stopSampling}. */
  startSampling(ms = 20): void {
    this.sample();
    this.sampler = setInterval(() => this.sample(), ms);
  }

  sample(): number | undefined {
    const rss = this.rssMiB();
    if (rss !== undefined) this.peakRssMiB = Math.max(this.peakRssMiB, rss);
    return rss;
  }

  stopSampling(): void {
    if (this.sampler) clearInterval(this.sampler);
    this.sampler = undefined;
  }

  /** Closes stdin and waits for the exit; kills the child (by its own pid) if it lingers. */
  async stop(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.stopSampling();
    if (this.exit) return this.exit;
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }

  private onStdout(chunk: string): void {
    const parts = (this.partial + chunk).split('\n');
    this.partial = parts.pop() ?? '';
    for (const text of parts) {
      let json: unknown;
      let parsed = true;
      try {
        json = JSON.parse(text);
      } catch {
        parsed = false;
      }
      this.lines.push({ index: this.lines.length, text, json, parsed });
    }
    if (parts.length > 0) this.wake();
  }

  private wake(): void {
    for (const wake of this.waiters.splice(0)) wake();
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON-RPC 2.0 response: jsonrpc "2.0", an id (or null), and exactly one of result and error. */
function isReply(value: unknown): value is Reply {
  return isRecord(value) && !('method' in value) && 'id' in value && ('result' in value || 'error' in value);
}

export function sameId(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'number' && typeof b === 'number' && Object.is(a, b));
}

/**
 * Why a stdout line is not a well-formed JSON-RPC 2.0 message (response, request or
 * notification), or undefined when it is one.
 */
export function jsonRpcProblem(line: StdoutLine): string | undefined {
  if (!line.parsed) return 'not JSON';
  const message = line.json;
  if (!isRecord(message)) return 'not a JSON object';
  if (message['jsonrpc'] !== '2.0') return 'jsonrpc is not "2.0"';
  const allowed = new Set(['jsonrpc', 'id', 'method', 'params', 'result', 'error']);
  const extra = Object.keys(message).filter((key) => !allowed.has(key));
  if (extra.length > 0) return `unexpected members ${extra.join(', ')}`;
  if ('method' in message) {
    if (typeof message['method'] !== 'string') return 'method is not a string';
    if ('result' in message || 'error' in message) return 'a request or notification with result/error';
    if ('id' in message && !isMcpId(message['id'])) return 'a request id that is not a string or integer';
    if ('params' in message && !isRecord(message['params'])) return 'params is not an object';
    return undefined;
  }
  if (!('id' in message)) return 'a response without id';
  if ('result' in message === 'error' in message) return 'a response needs exactly one of result and error';
  const id = message['id'];
  if ('result' in message) {
    // A result answers a request the server accepted, so its id is one MCP allows.
    if (!isMcpId(id)) return 'a result whose id is not a string or integer';
    return isRecord(message['result']) ? undefined : 'result is not an object';
  }
  // An error may answer a request whose id MCP refuses but JSON-RPC allows (a number), or none (null).
  if (id !== null && !isMcpId(id) && !(typeof id === 'number' && Number.isFinite(id))) {
    return 'an error whose id is not a string, number or null';
  }
  const error = message['error'];
  if (!isRecord(error)) return 'error is not an object';
  if (!Number.isInteger(error['code'])) return 'error.code is not an integer';
  if (typeof error['message'] !== 'string') return 'error.message is not a string';
  return undefined;
}

/** A request id as MCP allows it: a string or an integer (JSON-RPC's number, less fractions). */
export function isMcpId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value));
}

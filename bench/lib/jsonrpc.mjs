// A raw MCP client over a child's stdio: newline-delimited JSON-RPC written to stdin, responses
// matched by id. No SDK on the measuring side, so both servers of a comparison pay the same
// (small) client cost.
import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { ROOT } from './common.mjs';

export const DEFAULT_PROTOCOL_VERSION = '2025-11-25';

export class StdioPeer {
  #pending = new Map();
  #nextId = 1;
  #buffer = '';
  #stderr = '';
  #exited;

  /** Starts `command args` with piped stdio; nothing is sent until {@link StdioPeer.initialize}. */
  constructor(label, command, args, { env, cwd = ROOT } = {}) {
    this.label = label;
    this.argv = [command, ...args];
    this.child = spawn(command, args, { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.pid = this.child.pid;
    this.child.stdout.setEncoding('utf8').on('data', (chunk) => this.#onStdout(chunk));
    this.child.stderr.setEncoding('utf8').on('data', (chunk) => (this.#stderr = (this.#stderr + chunk).slice(-4096)));
    // A write to a child that has died fails with EPIPE; the exit handler below reports it.
    this.child.stdin.on('error', () => undefined);
    this.#exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        this.exit = { code, signal };
        const reason = new Error(
          `${label} exited (code ${code}, signal ${signal}) with ${this.#pending.size} request(s) unanswered` +
            (this.#stderr ? `; its stderr ends with:\n${this.#stderr}` : ''),
        );
        for (const { reject } of this.#pending.values()) reject(reason);
        this.#pending.clear();
        resolve(this.exit);
      });
    });
    this.spawnError = new Promise((_, reject) => this.child.on('error', reject));
    this.spawnError.catch(() => undefined);
  }

  get stderrTail() {
    return this.#stderr;
  }

  /**
   * Sends a request; resolves with `{ message, bytes }` (the response and the length of its line
   * in bytes), rejects with a JSON-RPC error or when the child exits first.
   */
  request(method, params) {
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  }

  notify(method, params) {
    this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method, ...(params ? { params } : {}) })}\n`);
  }

  /** The 2025-era opening: `initialize`, then `notifications/initialized`. Resolves with its result. */
  async initialize(protocolVersion = DEFAULT_PROTOCOL_VERSION) {
    const { message } = await Promise.race([
      this.request('initialize', {
        protocolVersion,
        capabilities: {},
        clientInfo: { name: 'wallet-bench', version: '0.0.0' },
      }),
      this.spawnError,
    ]);
    this.notify('notifications/initialized');
    return message.result;
  }

  /** Every tool of `tools/list`, following `nextCursor`; also the bytes of each response line. */
  async listTools() {
    const tools = [];
    const pages = [];
    let cursor;
    do {
      const { message, bytes } = await this.request('tools/list', cursor === undefined ? {} : { cursor });
      pages.push({ result: message.result, bytes });
      tools.push(...message.result.tools);
      cursor = message.result.nextCursor;
    } while (cursor !== undefined);
    return { tools, pages };
  }

  /**
   * Closes stdin and waits for the exit (a stdio server must exit when its input ends). After
   * `graceMs` the child is sent SIGTERM, then SIGKILL; `exitedOnStdinClose` says whether it was needed.
   */
  async close(graceMs = 5000) {
    if (this.exit) return { ...this.exit, exitedOnStdinClose: true };
    this.child.stdin.end();
    const timeout = Symbol('timeout');
    if ((await Promise.race([this.#exited, delay(graceMs, timeout)])) !== timeout) {
      return { ...this.exit, exitedOnStdinClose: true };
    }
    this.child.kill('SIGTERM');
    if ((await Promise.race([this.#exited, delay(graceMs, timeout)])) === timeout) this.child.kill('SIGKILL');
    await this.#exited;
    return { ...this.exit, exitedOnStdinClose: false };
  }

  #onStdout(chunk) {
    this.#buffer += chunk;
    let newline;
    while ((newline = this.#buffer.indexOf('\n')) !== -1) {
      const line = this.#buffer.slice(0, newline);
      this.#buffer = this.#buffer.slice(newline + 1);
      if (line.trim()) this.#onLine(line);
    }
  }

  #onLine(line) {
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      this.#failAll(new Error(`${this.label} wrote a line that is not JSON: ${line.slice(0, 200)}`));
      return;
    }
    if (message.method !== undefined) {
      // A request from the server (none is expected: the client declares no capabilities).
      if (message.id !== undefined) {
        const error = { code: -32601, message: 'The benchmark client serves no requests' };
        this.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: message.id, error })}\n`);
      }
      return;
    }
    const waiting = this.#pending.get(message.id);
    if (!waiting) return;
    this.#pending.delete(message.id);
    if (message.error) {
      waiting.reject(new Error(`${this.label}: JSON-RPC error ${message.error.code}: ${message.error.message}`));
    } else {
      waiting.resolve({ message, bytes: Buffer.byteLength(line) + 1 });
    }
  }

  #failAll(error) {
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }
}

import {
  ReadBuffer,
  SdkError,
  SdkErrorCode,
  serializeMessage,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import type { ServerProcess } from './stdio-child.js';

/** How long `close` waits for the server to exit after each step (stdin ended, SIGTERM): the SDK's own. */
const EXIT_WAIT_MS = 2_000;

/**
 * MCP over the stdio of a server process already running ({@link ServerProcess}), as the SDK's
 * `StdioClientTransport` speaks it over a process it spawns itself: newline-delimited JSON-RPC,
 * the SDK's own reader and writer, and the same way to close (end stdin, wait, SIGTERM, wait,
 * SIGKILL). Only for a server whose protocol era is known: the SDK negotiates an unknown era on a
 * sibling process, which only its own transport can spawn.
 */
export class ChildProcessTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  private readonly readBuffer = new ReadBuffer();
  private started = false;
  private ended = false;

  constructor(private readonly server: ServerProcess) {}

  /** The server's pid, for a signal when it is slow to exit after close. */
  get pid(): number | null {
    return this.ended ? null : (this.server.child?.pid ?? null);
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('ChildProcessTransport already started');
    this.started = true;
    await this.server.spawned;
    const child = this.server.child;
    if (!child) return;
    child.on('error', (error) => this.onerror?.(error));
    child.stdin?.on('error', (error) => this.onerror?.(error));
    child.stdout?.on('error', (error) => this.onerror?.(error));
    // Read from now on: what the server wrote before (it answers no request unasked) waited in the pipe.
    child.stdout?.on('data', (chunk: Buffer) => {
      try {
        this.readBuffer.append(chunk);
      } catch (error) {
        // Past the reader's bound: the stream cannot be trusted any more.
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        this.close().catch(() => undefined);
        return;
      }
      // As the SDK's transport: a line that is not a JSON-RPC message is told and skipped.
      for (;;) {
        try {
          const message = this.readBuffer.readMessage();
          if (message === null) break;
          this.onmessage?.(message);
        } catch (error) {
          this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        }
      }
    });
    // A server that died before the session began is told as closed once the first request has
    // been sent (and refused as closed), as the SDK's transport tells one that dies at once.
    if (this.server.closed()) setImmediate(() => this.closedNow());
    else child.once('close', () => this.closedNow());
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.server.closed()) return Promise.reject(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'));
    const stdin = this.ended ? undefined : this.server.child?.stdin;
    if (!stdin) return Promise.reject(new SdkError(SdkErrorCode.NotConnected, 'Not connected'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    const child = this.server.child;
    if (this.ended || !child) return;
    this.ended = true;
    const exited = (): boolean => this.server.closed() || child.exitCode !== null || child.signalCode !== null;
    const closing = new Promise<void>((resolve) => (this.server.closed() ? resolve() : child.once('close', resolve)));
    const wait = () =>
      Promise.race([closing, new Promise<void>((resolve) => setTimeout(resolve, EXIT_WAIT_MS).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // Gone already.
    }
    await wait();
    if (!exited()) {
      child.kill('SIGTERM');
      await wait();
    }
    if (!exited()) child.kill('SIGKILL');
    this.readBuffer.clear();
  }

  private closedNow(): void {
    this.ended = true;
    this.onclose?.();
  }
}

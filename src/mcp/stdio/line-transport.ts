import type { Readable, Writable } from 'node:stream';
import type { JSONRPCErrorResponse, JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import { judgeLine, LineSplitter, MAX_LINE_BYTES, tooLargeReply } from './line-guard.js';

/** Told of each line that was not passed on: why, and whether it was answered. */
export type RejectedLine = (reason: string, replied: boolean) => void;

/**
 * MCP's stdio transport for `wallet serve`: newline-delimited JSON-RPC on stdin and stdout. Each
 * line is parsed and checked once ({@link judgeLine}); a line that is no MCP message is answered
 * as JSON-RPC says, where the SDK's transport would drop it unanswered. Replies go out in order,
 * through one writer, honouring stdout's backpressure. It closes when stdin ends.
 */
export class StdioLineTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  private readonly splitter: LineSplitter;
  private started = false;
  private closed = false;
  private queued: string[] = [];
  private flushing: Promise<void> | undefined;
  /** Settles when stdout has taken the last write; a failure there fails every later write too. */
  private drained: Promise<void> = Promise.resolve();

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly rejected: RejectedLine = () => undefined,
    maxLineBytes = MAX_LINE_BYTES,
  ) {
    this.splitter = new LineSplitter(
      (line) => this.receive(line.toString('utf8')),
      () => this.refuse(tooLargeReply(), 'too-large'),
      maxLineBytes,
    );
  }

  start(): Promise<void> {
    if (this.started) throw new Error('StdioLineTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onInputError);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('close', this.onEnd);
    this.stdout.on('error', this.onOutputError);
    if (this.stdin.readableEnded || this.stdin.destroyed) setImmediate(this.onEnd);
    return Promise.resolve();
  }

  /**
   * Queues one message; the messages sent in one turn of the event loop go out in one write (at
   * 32 requests in flight that saves most write syscalls). Resolves once stdout has taken it.
   * When stdout is full, the next write waits for it to drain, so a slow reader holds the answers
   * here, in order, rather than in ever more pending writes.
   */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the stdio connection is closed'));
    let line: unknown;
    try {
      line = JSON.stringify(message);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (typeof line !== 'string') return Promise.reject(new Error('not a JSON-RPC message'));
    this.queued.push(`${line}\n`);
    this.flushing ??= new Promise((resolve, reject) => setImmediate(() => this.flush().then(resolve, reject)));
    return this.flushing;
  }

  private async flush(): Promise<void> {
    // Messages queued while the previous write drains join this write.
    await this.drained;
    const text = this.queued.join('');
    this.queued = [];
    this.flushing = undefined;
    const { stdout } = this;
    if (stdout.destroyed || stdout.writableEnded || stdout.errored) throw new Error('stdout is closed');
    if (stdout.write(text)) return;
    this.drained = new Promise<void>((resolve, reject) => {
      const settle = (error?: Error): void => {
        stdout.off('drain', onDrain);
        stdout.off('error', settle);
        stdout.off('close', onClose);
        if (error) reject(error);
        else resolve();
      };
      const onDrain = (): void => settle();
      const onClose = (): void => settle(new Error('stdout closed before it drained'));
      stdout.once('drain', onDrain);
      stdout.once('error', settle);
      stdout.once('close', onClose);
    });
    await this.drained;
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onInputError);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('close', this.onEnd);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.onclose?.();
    return Promise.resolve();
  }

  private receive(line: string): void {
    const verdict = judgeLine(line);
    if (!verdict.pass) {
      this.refuse(verdict.reply, verdict.reason);
      return;
    }
    try {
      this.onmessage?.(verdict.message);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private refuse(reply: JSONRPCErrorResponse | undefined, reason: string): void {
    this.rejected(reason, reply !== undefined);
    if (reply && !this.closed) void this.send(reply).catch(() => undefined);
  }

  private readonly onData = (chunk: Buffer | string): void => {
    this.splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };

  private readonly onEnd = (): void => {
    if (this.closed) return;
    this.splitter.end();
    void this.close();
  };

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
  };

  // A write that fails after close (the client went away) is expected and not reported.
  private readonly onOutputError = (error: Error): void => {
    if (this.closed) return;
    this.onerror?.(error);
    void this.close();
  };
}

import type { Readable, Writable } from 'node:stream';
import type { JSONRPCErrorResponse, JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import {
  emptyBatchReply,
  judgeLine,
  judgeValue,
  LineSplitter,
  MAX_LINE_BYTES,
  parseLine,
  tooLargeReply,
} from './line-guard.js';

/** Told of each line that was not passed on: why, and whether it was answered. */
export type RejectedLine = (reason: string, replied: boolean) => void;

type RequestId = string | number;

/** The answers owed to one JSON-RPC batch: sent together, as one array, once all are in. */
type Batch = { waiting: Set<RequestId>; replies: JSONRPCMessage[] };

/** How long the requests in flight when stdin ends may take to be answered before the connection closes. */
const END_OF_INPUT_DRAIN_MS = 30_000;

/** The only protocol revision whose JSON-RPC allows batches (2025-06-18 removed them). */
const BATCH_REVISION = '2025-03-26';

/**
 * MCP's stdio transport for `wallet serve`: newline-delimited JSON-RPC on stdin and stdout. Each
 * line is parsed and checked once ({@link judgeLine}); a line that is no MCP message is answered
 * as JSON-RPC says, where the SDK's transport would drop it unanswered. Replies go out in order,
 * through one writer, honouring stdout's backpressure. When stdin ends (or {@link drain} is called)
 * it reads no more, but every request it passed on is still answered, within a bound, before it
 * closes. On a connection that negotiated 2025-03-26 it accepts JSON-RPC batches, as that revision
 * requires, and answers each with one array.
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
  /** The last write queued, so closing can wait for it. */
  private lastWrite: Promise<void> = Promise.resolve();
  /** Requests passed on and not yet answered, by id (a count: a client may reuse an id). */
  private readonly inFlight = new Map<RequestId, number>();
  private whenIdle: (() => void)[] = [];
  private readonly initializeIds = new Set<RequestId>();
  private protocolVersion: string | undefined;
  private readonly batches = new Map<RequestId, Batch>();
  private inputEnded = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly rejected: RejectedLine = () => undefined,
    maxLineBytes = MAX_LINE_BYTES,
    private readonly endOfInputDrainMs = END_OF_INPUT_DRAIN_MS,
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
    const id = 'method' in message ? undefined : (message.id as RequestId | undefined);
    if (id === undefined) return this.write(message);
    if (this.initializeIds.delete(id) && 'result' in message) {
      const version = message.result['protocolVersion'];
      if (typeof version === 'string') this.protocolVersion = version;
    }
    const batch = this.batches.get(id);
    let written: Promise<void>;
    if (batch) {
      this.batches.delete(id);
      batch.waiting.delete(id);
      batch.replies.push(message);
      written = batch.waiting.size === 0 ? this.write(batch.replies) : Promise.resolve();
    } else {
      written = this.write(message);
    }
    this.answered(id);
    return written;
  }

  /**
   * Stops reading stdin and closes once every request passed on has been answered, or after
   * `ms`, whichever is first (SIGTERM: a shorter bound than the end of input's).
   */
  drain(ms: number): Promise<void> {
    this.stopInput();
    return this.finish(ms);
  }

  private write(value: JSONRPCMessage | JSONRPCMessage[]): Promise<void> {
    let line: unknown;
    try {
      line = JSON.stringify(value);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    if (typeof line !== 'string') return Promise.reject(new Error('not a JSON-RPC message'));
    this.queued.push(`${line}\n`);
    this.flushing ??= new Promise((resolve, reject) => setImmediate(() => this.flush().then(resolve, reject)));
    this.lastWrite = this.flushing;
    return this.flushing;
  }

  private answered(id: RequestId): void {
    const count = this.inFlight.get(id);
    if (count === undefined) return;
    if (count > 1) this.inFlight.set(id, count - 1);
    else this.inFlight.delete(id);
    if (this.inFlight.size === 0) for (const wake of this.whenIdle.splice(0)) wake();
  }

  private stopInput(): void {
    if (this.inputEnded) return;
    this.inputEnded = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('close', this.onEnd);
    this.splitter.end();
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
  }

  /** Waits (at most `ms`) for the answers still owed, writes them, then closes. */
  private async finish(ms: number): Promise<void> {
    if (this.inFlight.size > 0) {
      let timer: NodeJS.Timeout | undefined;
      await new Promise<void>((resolve) => {
        this.whenIdle.push(resolve);
        timer = setTimeout(resolve, ms);
      });
      clearTimeout(timer);
    }
    if (this.closed) return;
    // A batch cut short by the bound still gets the answers it has.
    for (const batch of new Set(this.batches.values())) {
      if (batch.replies.length > 0) void this.write(batch.replies).catch(() => undefined);
    }
    this.batches.clear();
    await this.lastWrite.catch(() => undefined);
    await this.close();
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
    this.inputEnded = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onInputError);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('close', this.onEnd);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    for (const wake of this.whenIdle.splice(0)) wake();
    this.onclose?.();
    return Promise.resolve();
  }

  private receive(line: string): void {
    if (this.protocolVersion === BATCH_REVISION && line.trimStart().startsWith('[')) {
      this.receiveBatch(line);
      return;
    }
    const verdict = judgeLine(line);
    if (!verdict.pass) {
      this.refuse(verdict.reply, verdict.reason);
      return;
    }
    this.deliver(verdict.message);
  }

  /** A 2025-03-26 batch: each element judged as a line is, the answers sent as one array. */
  private receiveBatch(line: string): void {
    const parsed = parseLine(line);
    if ('reply' in parsed) {
      this.refuse(parsed.reply, parsed.reason);
      return;
    }
    const elements = parsed.value as unknown[];
    if (elements.length === 0) {
      this.refuse(emptyBatchReply(), 'empty-batch');
      return;
    }
    const batch: Batch = { waiting: new Set(), replies: [] };
    const messages: JSONRPCMessage[] = [];
    for (const element of elements) {
      const verdict = judgeValue(element);
      if (verdict.pass) {
        messages.push(verdict.message);
        const { message } = verdict;
        if ('method' in message && 'id' in message && !this.batches.has(message.id)) {
          batch.waiting.add(message.id);
          this.batches.set(message.id, batch);
        }
      } else {
        this.rejected(verdict.reason, verdict.reply !== undefined);
        if (verdict.reply) batch.replies.push(verdict.reply);
      }
    }
    if (batch.waiting.size === 0 && batch.replies.length > 0) void this.write(batch.replies).catch(() => undefined);
    for (const message of messages) this.deliver(message);
  }

  private deliver(message: JSONRPCMessage): void {
    if ('method' in message) {
      if ('id' in message) {
        this.inFlight.set(message.id, (this.inFlight.get(message.id) ?? 0) + 1);
        if (message.method === 'initialize') {
          this.initializeIds.add(message.id);
          // The server agrees to a revision it supports, so lines sent before its answer (a
          // pipe) are read as that revision; the answer's version then settles it.
          const requested = message.params?.['protocolVersion'];
          if (typeof requested === 'string') this.protocolVersion = requested;
        }
      } else if (message.method === 'notifications/cancelled') {
        // A cancelled request is never answered (MCP's cancellation rule): nothing to wait for.
        const requestId = message.params?.['requestId'];
        if (typeof requestId === 'string' || typeof requestId === 'number') this.answered(requestId);
      }
    }
    try {
      this.onmessage?.(message);
    } catch (error) {
      this.onerror?.(error instanceof Error ? error : new Error(String(error)));
    }
  }

  private refuse(reply: JSONRPCErrorResponse | undefined, reason: string): void {
    this.rejected(reason, reply !== undefined);
    if (reply && !this.closed) void this.write(reply).catch(() => undefined);
  }

  private readonly onData = (chunk: Buffer | string): void => {
    this.splitter.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };

  private readonly onEnd = (): void => {
    if (this.closed || this.inputEnded) return;
    this.stopInput();
    void this.finish(this.endOfInputDrainMs);
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

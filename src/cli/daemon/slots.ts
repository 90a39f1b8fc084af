import { execFile } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, openSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { slotsDir, slotsNewDir, slotsTakenDir } from './paths.js';
import type { DaemonAnswer } from './wire.js';

/** How many slots the daemon keeps ready; more are made once fewer are left. */
const READY = 4;
/** How many a batch makes: one `mkfifo` (a process) for all of their pipes, every dozen calls. */
const BATCH = 12;
/** How long after a call the used slots are replaced: not while its client is still exiting. */
const REFILL_DELAY_MS = 250;
/**
 * A slot taken that sent no request within this (counted from when the daemon first saw it
 * taken: it cannot know when it was) is dropped: its client died between the two, or gave up.
 */
const TAKEN_LIMIT_MS = 60_000;

/** One call's ends, once its client wrote its request: what the daemon reads and writes. */
export type SlotCall = { input: Socket; output: Socket; leftover: string; request: string };

/** How many `Slots` this process made: one a daemon, more in tests. */
let instances = 0;

/**
 * The daemon's slots: named pipes a client can call through without Node's `net` (the thin
 * client's synchronous exchange, src/cli/daemon/client.ts: 2 to 6 % less a warm call's time
 * than the socket's, docs/PERFORMANCE.md). A slot is a folder of `<daemon>/slots/` holding two
 * FIFOs, `in` and `out` (0600, in the 0700 daemon folder: only the owner can use one). A client
 * takes one by renaming it into `slots-taken/` (atomic: one client a slot), opens `in` to write
 * and `out` to read, writes its request line, and reads the answer lines. Each slot serves one
 * call, then goes.
 *
 * Until a request arrives the daemon holds both pipes open read-write: a client's opens never
 * block, and a client's `O_NONBLOCK` open of `in` for writing fails (ENXIO) once the daemon is
 * gone, so a slot left by a killed daemon is seen dead at once. Once its request is read the
 * daemon opens `in` read-only and `out` write-only and lets its own read-write ends go, so that
 * the client's exit is seen (end of `in`, EPIPE on `out`) as the socket's close is.
 */
export class Slots {
  private readonly ready = new Map<string, { placeholder: { input: Socket; output: Socket }; takenSeen?: number }>();
  private making = false;
  private refill: NodeJS.Timeout | undefined;
  private sweeping: NodeJS.Timeout | undefined;
  private closed = false;
  /** No `mkfifo` on this system: not tried again (the sweep's timer would, every half-minute). */
  private noMkfifo = false;
  private sequence = 0;
  /** What its slots' names start with: this process and this instance (its names are its own). */
  private readonly tag = `${process.pid}.${++instances}`;
  /** The batch being made (its folders in slots-new/), for a stop meanwhile to remove. */
  private batch: string[] = [];
  private readonly takenLimitMs: number;

  /** `takenLimitMs`: see TAKEN_LIMIT_MS (tests make it short); the sweep runs twice in it. */
  constructor(
    private readonly daemonDir: string,
    private readonly onCall: (call: SlotCall) => void,
    options: { takenLimitMs?: number } = {},
  ) {
    this.takenLimitMs = options.takenLimitMs ?? TAKEN_LIMIT_MS;
  }

  /** Clears what an earlier daemon left (its slots are dead) and makes the first ones. */
  start(): void {
    for (const dir of [slotsDir(this.daemonDir), slotsNewDir(this.daemonDir), slotsTakenDir(this.daemonDir)]) {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { mode: 0o700 });
    }
    this.top();
    // Slots taken and never written count as ready until dropped: without a sweep of its own,
    // a few such (clients killed, or failing, between taking and writing) would stop the
    // refills for good (only a call through a slot schedules one) and all calls use the socket.
    this.sweeping = setInterval(() => {
      this.sweep();
      this.top();
    }, this.takenLimitMs / 2);
    this.sweeping.unref();
  }

  /**
   * Ends every slot not yet used (calls in progress keep their ends). Their folders go first, so
   * no client takes one now; then each says on its `out` that the client is to make its call itself
   * (read by one that sent its request just before), and its `in` end goes: a client that took
   * one and had not sent yet finds the daemon gone (ENXIO, or EPIPE on its request) and uses the
   * socket. The `out` ends stay open until the process exits: a client between its two opens is
   * never left waiting for a writer. Only its own slots go, and the three folders only if then
   * empty: a daemon that ends after another took its place (one that did not answer in time)
   * leaves the other's slots.
   */
  close(): void {
    this.closed = true;
    clearTimeout(this.refill);
    clearInterval(this.sweeping);
    for (const name of this.ready.keys()) {
      rmSync(join(slotsDir(this.daemonDir), name), { recursive: true, force: true });
      rmSync(join(slotsTakenDir(this.daemonDir), name), { recursive: true, force: true });
    }
    for (const name of this.batch) rmSync(join(slotsNewDir(this.daemonDir), name), { recursive: true, force: true });
    for (const dir of [slotsDir(this.daemonDir), slotsNewDir(this.daemonDir), slotsTakenDir(this.daemonDir)]) {
      try {
        rmdirSync(dir);
      } catch {
        // Not empty (another daemon's slots), or gone already.
      }
    }
    for (const { placeholder } of this.ready.values()) {
      // Read by a client that sent its request just now: it makes the call itself.
      const answer: DaemonAnswer = { kind: 'fallback', reason: 'the daemon is ending' };
      placeholder.output.write(`${JSON.stringify(answer)}\n`);
      placeholder.input.destroy();
    }
    this.ready.clear();
  }

  /** Makes a batch when fewer than READY are left (none while one is being made). */
  private top(): void {
    if (this.closed || this.noMkfifo || this.making || this.ready.size >= READY) return;
    this.making = true;
    const names = Array.from({ length: BATCH }, () => `${this.tag}-${++this.sequence}`);
    const fresh = slotsNewDir(this.daemonDir);
    try {
      // The folders again, should an ending daemon that this one replaced have removed them.
      for (const dir of [slotsDir(this.daemonDir), slotsTakenDir(this.daemonDir)]) {
        mkdirSync(dir, { recursive: true, mode: 0o700 });
      }
      for (const name of names) mkdirSync(join(fresh, name), { recursive: true, mode: 0o700 });
    } catch {
      this.making = false;
      return;
    }
    this.batch = names;
    const pipes = names.flatMap((name) => [join(fresh, name, 'in'), join(fresh, name, 'out')]);
    // Node has no mkfifo: the system's (POSIX; on Linux and macOS). Without it, no slots: the
    // clients use the socket, as before.
    execFile('mkfifo', ['-m', '600', ...pipes], (error) => {
      this.making = false;
      this.batch = [];
      if ((error as NodeJS.ErrnoException | null)?.code === 'ENOENT') this.noMkfifo = true;
      if (error || this.closed) {
        for (const name of names) rmSync(join(fresh, name), { recursive: true, force: true });
        return;
      }
      for (const name of names) this.open(name);
      this.sweep();
    });
  }

  /** Opens a made slot's pipes, then shows it to clients (renamed into slots/). */
  private open(name: string): void {
    const made = join(slotsNewDir(this.daemonDir), name);
    let inFd: number | undefined;
    let outFd: number | undefined;
    try {
      inFd = openSync(join(made, 'in'), constants.O_RDWR | constants.O_NONBLOCK);
      outFd = openSync(join(made, 'out'), constants.O_RDWR | constants.O_NONBLOCK);
      const placeholder = {
        input: new Socket({ fd: inFd, readable: true, writable: false }),
        output: new Socket({ fd: outFd, readable: false, writable: true }),
      };
      placeholder.input.on('error', () => undefined);
      placeholder.output.on('error', () => undefined);
      this.ready.set(name, { placeholder });
      this.await(name, placeholder);
      renameSync(made, join(slotsDir(this.daemonDir), name));
    } catch {
      this.drop(name);
      if (inFd !== undefined && !this.ready.has(name)) safeClose(inFd);
      if (outFd !== undefined && !this.ready.has(name)) safeClose(outFd);
      rmSync(made, { recursive: true, force: true });
    }
  }

  /** Reads the slot's request line; then hands the call its own ends. */
  private await(name: string, placeholder: { input: Socket; output: Socket }): void {
    let received = '';
    placeholder.input.setEncoding('utf8');
    const onData = (chunk: string): void => {
      received += chunk;
      const end = received.indexOf('\n');
      if (end === -1) return;
      placeholder.input.off('data', onData);
      placeholder.input.pause();
      // Nothing follows a request before the daemon asks for it (a `read`); kept if it does.
      const rest: unknown = placeholder.input.read();
      if (typeof rest === 'string') received += rest;
      this.ready.delete(name);
      this.scheduleRefill();
      this.takeCall(name, placeholder, received.slice(0, end), received.slice(end + 1));
    };
    placeholder.input.on('data', onData);
  }

  /**
   * The call's own ends: `in` read-only (its end is the client's exit) and `out` write-only (a
   * write after the client is gone fails), opened while the client holds the other ends; then
   * the daemon's read-write ends go. A client already gone: its answer is written nowhere.
   */
  private takeCall(
    name: string,
    placeholder: { input: Socket; output: Socket },
    request: string,
    leftover: string,
  ): void {
    const taken = join(slotsTakenDir(this.daemonDir), name);
    let input: Socket;
    let output: Socket;
    try {
      input = new Socket({
        fd: openSync(join(taken, 'in'), constants.O_RDONLY | constants.O_NONBLOCK),
        readable: true,
        writable: false,
      });
    } catch {
      input = placeholder.input;
    }
    try {
      output = new Socket({
        fd: openSync(join(taken, 'out'), constants.O_WRONLY | constants.O_NONBLOCK),
        readable: false,
        writable: true,
      });
    } catch {
      // No reader (ENXIO): the client went after its request. The call is still made, as one
      // whose socket closed after its request is; what it answers goes nowhere.
      output = new Socket({ readable: false, writable: false });
      output.destroy();
    }
    if (input !== placeholder.input) placeholder.input.destroy();
    placeholder.output.destroy();
    rmSync(taken, { recursive: true, force: true });
    this.onCall({ input, output, leftover, request });
  }

  /**
   * Drops slots taken long ago that never sent a request (their client died in between). How
   * long a slot waited to be taken does not count: a client that took an old slot just now is
   * about to write its request.
   */
  private sweep(): void {
    const now = Date.now();
    for (const [name, slot] of this.ready) {
      // Still in slots/: not taken, still good.
      if (existsSync(join(slotsDir(this.daemonDir), name))) continue;
      slot.takenSeen ??= now;
      if (now - slot.takenSeen < this.takenLimitMs) continue;
      this.drop(name);
      rmSync(join(slotsTakenDir(this.daemonDir), name), { recursive: true, force: true });
    }
  }

  private drop(name: string): void {
    const slot = this.ready.get(name);
    if (!slot) return;
    this.ready.delete(name);
    slot.placeholder.input.destroy();
    slot.placeholder.output.destroy();
  }

  private scheduleRefill(): void {
    if (this.refill || this.closed) return;
    this.refill = setTimeout(() => {
      this.refill = undefined;
      this.top();
    }, REFILL_DELAY_MS);
  }
}

function safeClose(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Already closed with its socket.
  }
}

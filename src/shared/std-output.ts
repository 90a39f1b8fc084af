import { fstatSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import type * as Tty from 'node:tty';

const require = createRequire(import.meta.url);

/** What the CLI writes its output and messages to. */
export type OutputStream = {
  write(text: string): unknown;
  readonly isTTY?: boolean | undefined;
  readonly columns?: number | undefined;
};

let stdout: OutputStream | undefined;
let stderr: OutputStream | undefined;
let nodeStreams = false;

/**
 * The process's stdout, made on first use. `process.stdout` and `process.stderr` of a pipe are
 * sockets: the first use of either loads Node's `net` and streams, ~3 ms of a start
 * (docs/PERFORMANCE.md), though a CLI writes its result once. So both are written with
 * `fs.writeSync` unless they are a terminal, which gets Node's own stream (and with it the
 * spinner and the prompts). One writer per descriptor in the process, so what the CLI, its
 * logger and the audit's warnings write to stderr comes out in the order written.
 */
export function processStdout(): OutputStream {
  return nodeStreams ? process.stdout : (stdout ??= outputOn(1, () => process.stdout));
}

/** The process's stderr, as {@link processStdout} makes stdout. */
export function processStderr(): OutputStream {
  return nodeStreams ? process.stderr : (stderr ??= outputOn(2, () => process.stderr));
}

/**
 * From now on, stdout and stderr are Node's own streams, for `wallet serve`: a server runs for
 * long and must never wait on a reader. A direct write to a pipe its reader does not empty (an
 * agent that never reads the server's stderr) blocks the process, and every answer with it;
 * Node's stream keeps what the pipe cannot take yet and goes on serving.
 */
export function useNodeStreams(): void {
  nodeStreams = true;
}

/** A terminal's own stream; any other file descriptor (a pipe, a file, /dev/null) written directly. */
export function outputOn(fd: number, stream: () => NodeJS.WriteStream): OutputStream {
  return isTerminal(fd) ? stream() : new DirectOutput(fd, stream);
}

/** `tty.isatty`, asked only of a character device: loading `node:tty` loads `net` too. */
function isTerminal(fd: number): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    // A closed descriptor: Node's own stream decides what it is.
    return true;
  }
  return (require('node:tty') as typeof Tty).isatty(fd);
}

/**
 * Writes to a pipe or a file with `writeSync`, whole, in order. Should a write fail (a pipe left
 * non-blocking that is full, a reader gone, a full disk), that text and everything after it go to
 * Node's stream instead, which handles it as it would have from the start: it waits for the
 * pipe, and bin/wallet.js ends quietly on EPIPE.
 */
class DirectOutput implements OutputStream {
  readonly isTTY = false;
  #stream: NodeJS.WriteStream | undefined;

  constructor(
    private readonly fd: number,
    private readonly openStream: () => NodeJS.WriteStream,
  ) {}

  write(text: string): boolean {
    if (this.#stream) return this.#stream.write(text);
    const bytes = Buffer.from(text, 'utf8');
    let written = 0;
    try {
      while (written < bytes.length) written += writeSync(this.fd, bytes, written);
      return true;
    } catch {
      this.#stream = this.openStream();
      return this.#stream.write(bytes.subarray(written));
    }
  }
}

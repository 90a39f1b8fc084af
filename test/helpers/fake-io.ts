import { Readable } from 'node:stream';
import type { CliIo } from '../../src/cli/io.js';

/**
 * Streams for a CLI command run in this process, with what it wrote: no terminal, empty stdin.
 * Loads nothing of the CLI (test/helpers/io.ts's runCli loads all of it).
 */
export function fakeIo(env: Record<string, string> = {}): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (text: string) => (out += text), isTTY: false },
    stderr: { write: (text: string) => (err += text), isTTY: false },
    stdin: Object.assign(Readable.from([]), { isTTY: false }),
    env,
    out: () => out,
    err: () => err,
  };
}

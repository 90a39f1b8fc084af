import type { Readable } from 'node:stream';
import { processStderr, processStdout, type OutputStream } from '../shared/std-output.js';

type InputStream = Readable & {
  readonly isTTY?: boolean | undefined;
  setRawMode?: ((mode: boolean) => unknown) | undefined;
};

/** Everything the CLI touches of its process, injectable so tests run it in-process. */
export type CliIo = {
  stdout: OutputStream;
  stderr: OutputStream;
  stdin: InputStream;
  env: Readonly<Record<string, string | undefined>>;
};

/**
 * The process's own streams, each made on first use: stdout and stderr written directly unless
 * they are a terminal (src/shared/std-output.ts), stdin `process.stdin`, made only when something
 * reads it or asks whether it is a terminal.
 */
export function processIo(): CliIo {
  return {
    get stdout() {
      return processStdout();
    },
    get stderr() {
      return processStderr();
    },
    get stdin() {
      return process.stdin;
    },
    env: process.env,
  };
}

/** All of stdin as text. */
export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

import type { Readable } from 'node:stream';

export type OutputStream = {
  write(text: string): unknown;
  readonly isTTY?: boolean | undefined;
  readonly columns?: number | undefined;
};

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

export function processIo(): CliIo {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env };
}

/** All of stdin as text. */
export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

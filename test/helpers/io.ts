import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/main.js';

export type FakeIo = CliIo & { out: () => string; err: () => string };

/** Fake process streams for running the CLI in-process; stdin holds `stdin`. */
export function fakeIo(options: { stdin?: string; env?: Record<string, string>; tty?: boolean } = {}): FakeIo {
  let out = '';
  let err = '';
  const stdin = Object.assign(Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]), {
    isTTY: options.tty === true,
  });
  return {
    stdout: { write: (text: string) => (out += text), isTTY: options.tty === true },
    stderr: { write: (text: string) => (err += text), isTTY: false },
    stdin,
    env: { ...options.env },
    out: () => out,
    err: () => err,
  };
}

/** Runs `wallet <argv>` in-process against a fresh data directory. */
export async function wallet(
  argv: string[],
  options: { stdin?: string; env?: Record<string, string>; home?: string } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const home = options.home ?? tempHome();
  const io = fakeIo({ ...options, env: { WALLET_HOME: home, ...options.env } });
  const code = await runCli(argv, io);
  if (!options.home) rmSync(home, { recursive: true, force: true });
  return { code, stdout: io.out(), stderr: io.err() };
}

export function tempHome(): string {
  return mkdtempSync(join(tmpdir(), 'wallet-test-'));
}

/** An owner-only passphrase file in `dir` (as `--passphrase-file` requires); returns its path. */
export function passphraseFileIn(dir: string, passphrase: string, name = 'pw'): string {
  const path = join(dir, name);
  writeFileSync(path, `${passphrase}\n`, { mode: 0o600 });
  return path;
}

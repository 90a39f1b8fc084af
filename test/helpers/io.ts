import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/main.js';

export type FakeIo = CliIo & { out: () => string; err: () => string };

/**
 * Fake process streams for running the CLI in-process; stdin holds `stdin`. With `tty`, all three
 * claim to be a terminal (what someone typing at a prompt looks like; `stdin` is what they type).
 */
export function fakeIo(options: { stdin?: string; env?: Record<string, string>; tty?: boolean } = {}): FakeIo {
  let out = '';
  let err = '';
  const tty = options.tty === true;
  const stdin = Object.assign(Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]), {
    isTTY: tty,
    ...(tty ? { setRawMode: () => undefined } : {}),
  });
  return {
    stdout: { write: (text: string) => (out += text), isTTY: tty },
    stderr: { write: (text: string) => (err += text), isTTY: tty },
    stdin,
    env: { ...options.env },
    out: () => out,
    err: () => err,
  };
}

/** Runs `wallet <argv>` in-process against a fresh data directory. */
export async function wallet(
  argv: string[],
  options: { stdin?: string; env?: Record<string, string>; home?: string; tty?: boolean } = {},
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

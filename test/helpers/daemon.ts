/**
 * Kept-alive servers in tests: `wallet` spawned as a person or a script runs it, the daemon's
 * status, the fixture server saved under a name, and the clean-up (test/cli/daemon*.test.ts).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { tempHome } from './io.js';
import { FIXTURE_SERVER, WALLET_BIN } from './paths.js';

export type Run = { code: number | null; stdout: string; stderr: string };

/** `wallet <args>` as a separate process, as a person or a script runs it (stdin: `input`, or none). */
export function wallet(home: string, args: string[], input?: string, bin = WALLET_BIN): Run {
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WALLET_'))),
    WALLET_HOME: home,
    NO_COLOR: '1',
  };
  const run = spawnSync(process.execPath, [bin, ...args], {
    env,
    input: input ?? '',
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** `wallet <args>` without blocking this process (which serves an HTTP server of the test), `extraEnv` added. */
export function walletAsync(home: string, args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
  const env: NodeJS.ProcessEnv = {
    ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WALLET_'))),
    WALLET_HOME: home,
    NO_COLOR: '1',
    ...extraEnv,
  };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WALLET_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export type Status = {
  running: boolean;
  pid?: number;
  build?: string;
  servers?: { name: string; calls: number; log: string }[];
};

export function status(home: string): Status {
  const run = wallet(home, ['daemon', 'status', '--json']);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout) as Status;
}

/** Waits until the daemon is running (`up`) or not, polling its status. */
export async function daemonIs(home: string, up: boolean, timeoutMs = 20_000): Promise<Status> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const now = status(home);
    if (now.running === up) return now;
    if (Date.now() > deadline) throw new Error(`the daemon is ${now.running ? 'still running' : 'not running'}`);
    await delay(100);
  }
}

/** A data directory with the fixture server saved as `fx` (its events in `events`), not yet kept alive. */
export function homeWithFixture(): { home: string; events: string } {
  const home = tempHome();
  const events = join(home, 'fixture-events.log');
  const added = wallet(home, [
    'servers',
    'add',
    'fx',
    '--server',
    `"${process.execPath}" "${FIXTURE_SERVER}"`,
    '--env',
    `FIXTURE_EVENT_LOG=${events}`,
  ]);
  assert.equal(added.code, 0, added.stderr);
  return { home, events };
}

export function keepAlive(home: string, name: string, on = true): void {
  const run = wallet(home, ['servers', 'add', name, on ? '--keep-alive' : '--no-keep-alive']);
  assert.equal(run.code, 0, run.stderr);
}

/** The fixture's processes that started, by pid. */
export function starts(events: string): string[] {
  if (!existsSync(events)) return [];
  return readFileSync(events, 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('start '))
    .map((line) => line.split(' ')[2] ?? '');
}

/** Ends the daemon (if any) and removes the data directory. */
export async function cleanUp(home: string): Promise<void> {
  wallet(home, ['daemon', 'stop']);
  await daemonIs(home, false).catch(() => undefined);
  rmSync(home, { recursive: true, force: true });
}

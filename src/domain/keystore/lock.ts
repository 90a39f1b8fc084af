import { closeSync, linkSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { nodeCrypto } from '../../shared/node-crypto.js';
import { ensurePrivateDir, readTextIfAny, writeAll } from '../../shared/private-files.js';
import { hasSystemCode, WalletError } from '../errors.js';

export const LOCK_FILE_NAME = '.lock';
/** An empty lock file older than this was left by a crash between its creation and its write. */
const EMPTY_LOCK_STALE_MS = 5_000;

export type LockOptions = { timeoutMs?: number };

/** How long a named lock waits for its holder: a payment holding it may take that long. */
const NAMED_LOCK_TIMEOUT_MS = 120_000;

/**
 * Runs `task` holding the lock `<dataDir>/locks/<name>` (a wallet's or an account's payments, a
 * spend ledger), its folder made owner-only on first use.
 */
export async function withNamedLock<T>(dataDir: string, name: string, task: () => Promise<T>): Promise<T> {
  const dir = join(dataDir, 'locks', name);
  ensurePrivateDir(dir);
  return withLock(dir, task, { timeoutMs: NAMED_LOCK_TIMEOUT_MS });
}

/**
 * Runs `task` holding the keystore's writer lock: a file created with O_EXCL, holding the owner's
 * pid and host. Processes (and concurrent calls in one process) queue for it; a lock left by a
 * process that died on this host is taken over. Readers need no lock: files are replaced atomically.
 */
export async function withLock<T>(dir: string, task: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const path = join(dir, LOCK_FILE_NAME);
  const token = `${process.pid}\n${hostname()}\n${nodeCrypto().randomBytes(8).toString('hex')}\n`;
  await acquire(path, token, options.timeoutMs ?? 30_000);
  try {
    return await task();
  } finally {
    release(path, token);
  }
}

async function acquire(path: string, token: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; ; attempt++) {
    // Synchronous, as the keystore's files are (src/shared/private-files.ts); only the wait between
    // two attempts lets the event loop run.
    try {
      const fd = openSync(path, 'wx', 0o600);
      try {
        // Not synced to disk: a lock means nothing once the machine has stopped (its holder is
        // gone), and one that outlived a reboot could name a process id another process has since.
        writeAll(fd, Buffer.from(token, 'utf8'));
      } finally {
        closeSync(fd);
      }
      return;
    } catch (error) {
      if (!hasSystemCode(error, 'EEXIST')) throw error;
    }
    const holder = readHolder(path);
    if (holder && holder.host === hostname() && !isAlive(holder.pid)) {
      takeOverStale(path, holder.raw);
      continue;
    }
    if (!holder && isAbandonedEmpty(path)) {
      takeOverStale(path, '');
      continue;
    }
    if (Date.now() > deadline) {
      throw new WalletError(
        'BUSY',
        `The lock ${path} stayed taken for ${Math.round(timeoutMs / 1000)} s${holder ? ` by process ${holder.pid}` : ''}.`,
        {
          hint: `Another wallet process is writing (the keystore, an account or the spending ledger). If none is running, remove ${path}.`,
        },
      );
    }
    const wait = Math.min(10 + attempt * 5, 100) + Math.floor(Math.random() * 10);
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

type Holder = { pid: number; host: string; raw: string };

function readHolder(path: string): Holder | undefined {
  const raw = readTextIfAny(path);
  if (raw === undefined) return undefined;
  const [pid, host] = raw.split('\n');
  const number = Number(pid);
  // A lock file caught between create and write is empty: treat it as held, never as stale.
  if (!Number.isInteger(number) || number <= 0 || !host) return undefined;
  return { pid: number, host, raw };
}

/**
 * Moves a dead process's lock aside. The rename is atomic, so of several processes that saw it
 * stale one wins; a loser that renamed a fresh lock instead (taken in between) puts it back.
 */
function takeOverStale(path: string, staleRaw: string): void {
  const aside = `${path}.stale.${process.pid}.${nodeCrypto().randomBytes(4).toString('hex')}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if (hasSystemCode(error, 'ENOENT')) return;
    throw error;
  }
  if ((readTextIfAny(aside) ?? staleRaw) !== staleRaw) {
    // link, unlike rename, never replaces a lock taken meanwhile by a third process.
    try {
      linkSync(aside, path);
    } catch {
      // A lock taken meanwhile: it stays.
    }
  }
  rmSync(aside, { force: true });
}

/** A lock file still empty long after its creation: its creator died between create and write. */
function isAbandonedEmpty(path: string): boolean {
  try {
    const info = statSync(path);
    return info.size === 0 && Date.now() - info.mtimeMs > EMPTY_LOCK_STALE_MS;
  } catch {
    return false;
  }
}

function release(path: string, token: string): void {
  if (readTextIfAny(path) === token) rmSync(path, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return hasSystemCode(error, 'EPERM');
  }
}

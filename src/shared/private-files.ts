import {
  chmodSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { nodeCrypto } from './node-crypto.js';

// The wallet's own files (the keystore, its lock, the policy's state, the caches) are small and
// local: they are read and written synchronously. A CLI call then pays for no thread pool and no
// `node:fs/promises` (each request a round trip to a worker thread, ~6 ms of a call that hands
// out an address, docs/PERFORMANCE.md), and `wallet serve` is held for the length of a write,
// its fsyncs included (well under a millisecond each on a local disk).

/** Creates `dir` (and parents) owner-only, and tightens it to 0700 if it already existed looser. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const info = statSync(dir);
  if ((info.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/**
 * Replaces `path` with `data` so that a crash at any moment leaves either the old file or the new
 * one, never a mix: write an owner-only temp file beside it, fsync, rename over, fsync the folder.
 */
export function writeFileAtomic(path: string, data: string): void {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`);
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeAll(fd, Buffer.from(data, 'utf8'));
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  syncDir(dir);
}

/** A file's text, or undefined when it cannot be read (missing, unreadable, a folder). */
export function readTextIfAny(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** Writes all of `bytes` at the file's position: `writeSync` may write less than asked. */
export function writeAll(fd: number, bytes: Uint8Array): void {
  for (let written = 0; written < bytes.length;) written += writeSync(fd, bytes, written);
}

/** Makes a rename or unlink in `dir` durable (a no-op where folders cannot be opened, e.g. Windows). */
export function syncDir(dir: string): void {
  if (process.platform === 'win32') return;
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

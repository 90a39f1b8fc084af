import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { nodeCrypto } from './node-crypto.js';

// The wallet's own files (the keystore, its lock, the policy's state, the caches) are small and
// local: they are read and written synchronously. A CLI call then pays for no thread pool and no
// `node:fs/promises` (each request a round trip to a worker thread, ~6 ms of a call that hands
// out an address, docs/PERFORMANCE.md), and `wallet serve` is held for the length of a write,
// its fsyncs included (well under a millisecond each on a local disk).

// Every file of the data directory is the wallet's own: a regular file of this user that only
// this user can change. Anything else (a link planted to make the wallet append to, or read its
// policy from, a file elsewhere; another user's file; a file others can edit) is refused before a
// byte is read or written: the wallet runs with its owner's rights, often root's.

/**
 * A file of the data directory the wallet refuses to read or write: a link, not a regular file,
 * another user's, or writable by group or others. Tool results carry it as `KEYSTORE_DAMAGED`,
 * the CLI exits 6; the message names the file and what is wrong with it.
 */
export class UnsafeFileError extends Error {
  override name = 'UnsafeFileError';
  readonly code = 'KEYSTORE_DAMAGED';
  readonly hint: string;
  constructor(
    readonly path: string,
    problem: string,
    hint: string,
  ) {
    super(`The wallet file ${path} ${problem}; refused, nothing was read from or written to it.`);
    this.hint = hint;
  }
}

/** The user every file of the data directory must belong to (undefined where there are no uids). */
function ownUid(): number | undefined {
  return process.platform === 'win32' ? undefined : process.getuid?.();
}

/**
 * Refuses `info` (an `lstat` or an `fstat` of `path`) unless it is a regular file of this user
 * that group and others cannot write. What it is, and what to do, in one line each.
 */
export function checkPrivateFile(path: string, info: Stats): void {
  if (process.platform === 'win32') return;
  if (info.isSymbolicLink()) {
    throw new UnsafeFileError(
      path,
      'is a symbolic link',
      'The wallet never follows a link in its data directory: check where it points and who made it, then put the file itself in its place (or remove the link).',
    );
  }
  if (!info.isFile()) {
    throw new UnsafeFileError(path, 'is not a regular file', 'Move it out of the data directory.');
  }
  const uid = ownUid();
  if (uid !== undefined && info.uid !== uid) {
    throw new UnsafeFileError(
      path,
      `belongs to another user (uid ${info.uid})`,
      'Check its content, then give it to this user (chown) or move it aside.',
    );
  }
  if ((info.mode & 0o022) !== 0) {
    throw new UnsafeFileError(
      path,
      `is writable by others (mode ${(info.mode & 0o777).toString(8).padStart(4, '0')})`,
      `Check its content (others could have changed it), then make it owner-only: chmod 600 ${path}.`,
    );
  }
}

/** A link or a FIFO fails at `open` instead of being followed or waited on. */
const NO_FOLLOW = process.platform === 'win32' ? 0 : constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Opens `path` with `flags` without following a link, and checks what was opened. */
function openPrivate(path: string, flags: number, mode?: number): number {
  let fd: number;
  try {
    fd = openSync(path, flags | NO_FOLLOW, mode);
  } catch (error) {
    // ELOOP: the last component is a link. Name it as one, from lstat (which cannot follow).
    if (isErrno(error, 'ELOOP')) checkPrivateFile(path, lstatSync(path));
    throw error;
  }
  try {
    checkPrivateFile(path, fstatSync(fd));
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/**
 * The text of one of the wallet's own files, opened without following a link and refused
 * ({@link UnsafeFileError}) unless it is a private regular file. A missing file throws `ENOENT`
 * as `readFileSync` does, for the caller to take as "none yet".
 */
export function readPrivateText(path: string): string {
  const fd = openPrivate(path, constants.O_RDONLY);
  try {
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Opens one of the wallet's own files for appending (created owner-only), refused as
 * {@link readPrivateText} refuses; a file readable by others is made owner-only again.
 */
export function openPrivateAppend(path: string): number {
  const fd = openPrivate(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT, 0o600);
  try {
    if (process.platform !== 'win32' && (fstatSync(fd).mode & 0o077) !== 0) fchmodSync(fd, 0o600);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  return fd;
}

/** Creates `dir` (and parents) owner-only, and tightens it to 0700 if it already existed looser. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  tightenPrivateDir(dir);
}

/**
 * Makes an existing data directory owner-only (0700) and says so when it was not: run at the
 * start of every command, so a folder others could write (and plant a file or a link in) is
 * closed before anything in it is read. Another user's folder is refused. Returns the warning
 * to show, if any; a missing folder is left to be created owner-only at the first write.
 */
export function tightenPrivateDir(dir: string): string | undefined {
  if (process.platform === 'win32') return undefined;
  let info: Stats;
  try {
    info = statSync(dir);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw error;
  }
  if (!info.isDirectory()) {
    throw new UnsafeFileError(dir, 'is not a directory', "Move it aside, or set WALLET_HOME to the wallet's folder.");
  }
  const uid = ownUid();
  if (uid !== undefined && info.uid !== uid) {
    throw new UnsafeFileError(
      dir,
      `belongs to another user (uid ${info.uid})`,
      'Use a folder of your own (WALLET_HOME), or check what is in it and give it to this user (chown -R).',
    );
  }
  if ((info.mode & 0o077) === 0) return undefined;
  chmodSync(dir, 0o700);
  return `the data directory ${dir} was open to others (mode ${(info.mode & 0o777).toString(8).padStart(4, '0')}); made it owner-only (0700). Check that its files are yours.`;
}

function isErrno(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && (error as { code: unknown }).code === code;
}

/**
 * Replaces `path` with `data` so that a crash at any moment leaves either the old file or the new
 * one, never a mix: write an owner-only temp file beside it, fsync, rename over, fsync the folder.
 */
export function writeFileAtomic(path: string, data: string): void {
  // The rename would replace a link, not write through it; but a link, or another user's file,
  // where one of ours should be is refused, not quietly replaced.
  checkReplaceable(path);
  renameOver(writeTempBeside(path, Buffer.from(data, 'utf8')), path);
}

/** The second half: `temp` renamed over `path` (or removed if it cannot be), then the folder fsynced. */
export function renameOver(temp: string, path: string): void {
  try {
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  syncDir(dirname(path));
}

/**
 * Writes `bytes` to a new temp file beside `path` (same folder, a hidden unique name), fsynced and
 * closed, and returns its path: the first half of an atomic replace. Owner-only unless `mode` is
 * given, which it then has exactly (the umask would take bits away). On failure nothing is left.
 */
export function writeTempBeside(path: string, bytes: Uint8Array, mode?: number): string {
  const temp = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`,
  );
  const fd = openSync(temp, 'wx', mode ?? 0o600);
  try {
    if (mode !== undefined && process.platform !== 'win32') fchmodSync(fd, mode);
    writeAll(fd, bytes);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  return temp;
}

/** Refuses to replace `path` unless it is missing or a private regular file. */
function checkReplaceable(path: string): void {
  let info: Stats;
  try {
    info = lstatSync(path);
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return;
    throw error;
  }
  checkPrivateFile(path, info);
}

/**
 * A file's text, or undefined when it cannot be read (missing, unreadable, a folder) or is not a
 * private regular file ({@link readPrivateText}): for caches and lock files, which are remade.
 */
export function readTextIfAny(path: string): string | undefined {
  try {
    return readPrivateText(path);
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

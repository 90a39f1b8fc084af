import { chmod, mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { nodeCrypto } from './node-crypto.js';

/** Creates `dir` (and parents) owner-only, and tightens it to 0700 if it already existed looser. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (process.platform === 'win32') return;
  const info = await stat(dir);
  if ((info.mode & 0o077) !== 0) await chmod(dir, 0o700);
}

/**
 * Replaces `path` with `data` so that a crash at any moment leaves either the old file or the new
 * one, never a mix: write an owner-only temp file beside it, fsync, rename over, fsync the folder.
 */
export async function writeFileAtomic(path: string, data: string): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `.${basename(path)}.${process.pid}.${nodeCrypto().randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(data, 'utf8');
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncDir(dir);
}

/** Makes a rename or unlink in `dir` durable (a no-op where folders cannot be opened, e.g. Windows). */
export async function syncDir(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readFileSync, realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { renameOver, writeAll, writeTempBeside } from '../../shared/private-files.js';
import { errorCode, isErrnoCode } from '../servers/config.js';
import { BusyError, UsageError } from '../usage-error.js';

/** An agent's config file as read: its text and mode, or none yet. A link is followed to its file. */
export type ConfigFile = { path: string; text: string; mode: number | undefined };

export function readConfigFile(path: string): ConfigFile {
  try {
    const real = realpathSync(path);
    const fd = openSync(real, 'r');
    try {
      const info = fstatSync(fd);
      if (!info.isFile()) throw new UsageError(`${path} is not a regular file; it was left as it is.`);
      return { path: real, text: readFileSync(fd, 'utf8'), mode: info.mode & 0o7777 };
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) return { path, text: '', mode: undefined };
    if (error instanceof UsageError) throw error;
    throw new UsageError(`Cannot read ${path}: ${errorCode(error)}.`);
  }
}

/**
 * Replaces the file with `text`: a copy of the old file first (`<file>.bak-<UTC time>`, owner-only
 * when the file was, else with its mode), then the new text written beside it and renamed over,
 * so the agent reads the old file or the new one, never half of one. The file keeps its mode; a
 * new file is owner-only. Refused (BUSY) if the file changed since it was read: the agent may
 * have written it meanwhile. Returns the backup's path.
 */
export function replaceConfigFile(file: ConfigFile, text: string, now: Date): string | undefined {
  const dir = dirname(file.path);
  mkdirSync(dir, { recursive: true });
  if (readConfigFile(file.path).text !== file.text) {
    throw new BusyError(`${file.path} changed while this ran; it was left as it is.`, 'Run wallet setup again.');
  }
  const mode = file.mode ?? 0o600;
  const backup = file.mode === undefined ? undefined : writeBackup(file, now);
  // Exactly the old mode: the umask would take bits away from a new file's.
  renameOver(writeTempBeside(file.path, Buffer.from(text, 'utf8'), mode & 0o777), file.path);
  return backup;
}

function writeBackup(file: ConfigFile, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const mode = ((file.mode ?? 0o600) & 0o077) === 0 ? 0o600 : (file.mode ?? 0o600) & 0o777;
  for (let attempt = 0; ; attempt++) {
    const path = `${file.path}.bak-${stamp}${attempt === 0 ? '' : `-${attempt}`}`;
    let fd: number;
    try {
      fd = openSync(path, 'wx', mode);
    } catch (error) {
      if (isErrnoCode(error, 'EEXIST')) continue;
      throw error;
    }
    try {
      writeAll(fd, Buffer.from(file.text, 'utf8'));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    return path;
  }
}

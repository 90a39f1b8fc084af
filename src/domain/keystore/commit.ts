import { closeSync, fsyncSync, openSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { z } from 'zod';
import { syncDir, writeAll, writeFileAtomic } from '../../shared/private-files.js';
import { hasSystemCode, WalletError } from '../errors.js';
import { IMPORTED_KEY_FILE } from './imported-keys.js';
import { RESTORE } from './keystore-format.js';
import { readKeystoreText } from './files.js';
import { WALLET_FILE } from './wallet-record.js';

// A passphrase change's files staged beside the originals, its commit record, and the renames.

/** The suffix of a file a passphrase change staged: `.<name>.json.passphrase-change`. */
const STAGED_SUFFIX = '.passphrase-change';

/**
 * The commit record of a passphrase change: the names of the files whose staged versions are all
 * written and synced. Present only between the first and the last rename (or after a crash there).
 */
export const COMMIT_RECORD = '.passphrase-change.commit';
const CommitRecord = z.array(z.string().refine((name) => WALLET_FILE.test(name) || IMPORTED_KEY_FILE.test(name)));

export type StagedFile = { path: string; temp: string; text: string; old: string };

/** Writes `text` to an owner-only temp file beside `path`, synced; the old contents kept for a rollback. */
export async function stage(dir: string, path: string, text: string): Promise<StagedFile> {
  const temp = join(dir, `.${basename(path)}${STAGED_SUFFIX}`);
  const old = readKeystoreText(path);
  // A fresh file, never one found there: a link left at the temp's name is not written through.
  rmSync(temp, { force: true });
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeAll(fd, Buffer.from(text, 'utf8'));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { path, temp, text, old };
}

/**
 * Renames every staged file over its original, then syncs the folder. The commit record is written
 * first, so a crash between two renames is finished by the next process (`finishCommit`) rather
 * than leaving files under two passphrases. When a rename fails, the record goes and the files
 * already replaced get their old contents back (atomically), so the old passphrase opens every file
 * again, and the error is passed on.
 */
export async function commitStaged(
  staged: readonly { path: string; temp: string; old: string }[],
  dir: string,
): Promise<void> {
  const record = join(dir, COMMIT_RECORD);
  writeFileAtomic(record, JSON.stringify(staged.map((file) => basename(file.path))));
  const done: { path: string; old: string }[] = [];
  try {
    for (const file of staged) {
      renameSync(file.temp, file.path);
      done.push(file);
    }
  } catch (error) {
    rmSync(record, { force: true });
    syncDir(dir);
    for (const file of done.reverse()) writeFileAtomic(file.path, file.old);
    throw error;
  }
  syncDir(dir);
  rmSync(record, { force: true });
  syncDir(dir);
}

/**
 * Under the keystore lock: renames what a cut-short commit left staged over its files, then drops
 * the record. A rename already done left no staged file; a staged file no record names (a crash
 * before the commit) is left to `removeStaleStaging` and the next change.
 */
export async function finishCommit(dir: string): Promise<void> {
  const record = join(dir, COMMIT_RECORD);
  let text: string;
  try {
    text = readKeystoreText(record);
  } catch (error) {
    if (hasSystemCode(error, 'ENOENT')) return;
    throw error;
  }
  let names: string[];
  try {
    names = CommitRecord.parse(JSON.parse(text));
  } catch {
    throw new WalletError(
      'KEYSTORE_DAMAGED',
      `The record of an interrupted passphrase change, ${record}, cannot be read.`,
      RESTORE,
    );
  }
  for (const name of names) {
    try {
      renameSync(join(dir, `.${name}${STAGED_SUFFIX}`), join(dir, name));
    } catch (error) {
      if (!hasSystemCode(error, 'ENOENT')) throw error;
    }
  }
  syncDir(dir);
  rmSync(record, { force: true });
  removeStaleStaging(dir);
  syncDir(dir);
}

/** Removes what a failed passphrase change left staged (never an original file). */
export function removeStaleStaging(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names.filter((candidate) => candidate.endsWith(STAGED_SUFFIX))) {
    rmSync(join(dir, name), { force: true, recursive: true });
  }
}

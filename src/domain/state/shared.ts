import { resolve } from 'node:path';
import type { StateStore } from './store.js';

/**
 * The PostgreSQL state stores this process opened for each data directory, oldest first. Parts of
 * the wallet that are handed a data directory only (the passkeys, the approval page) find the
 * store here: while one is open for their data directory, they read and write it, not the files.
 * A short-lived second opening (the page's spending section) neither replaces nor, once closed,
 * removes the server's.
 */
const opened = new Map<string, StateStore[]>();

/** Records `store` as the state of `dataDir` (a PostgreSQL store; the files need no record). */
export function shareState(dataDir: string, store: StateStore): void {
  if (store.kind !== 'postgres') return;
  const key = resolve(dataDir);
  opened.set(key, [...(opened.get(key) ?? []), store]);
}

/** Forgets `store` as a state of `dataDir` (it was closed). */
export function unshareState(dataDir: string, store: StateStore): void {
  const key = resolve(dataDir);
  const left = (opened.get(key) ?? []).filter((each) => each !== store);
  if (left.length > 0) opened.set(key, left);
  else opened.delete(key);
}

/** The PostgreSQL store open for `dataDir` (the first opened of those still open), if any. */
export function sharedStateOf(dataDir: string): StateStore | undefined {
  return opened.get(resolve(dataDir))?.[0];
}

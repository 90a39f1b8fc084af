import { resolve } from 'node:path';
import type { StateStore } from './store.js';

/**
 * The PostgreSQL state store this process opened for each data directory. Parts of the wallet
 * that are handed a data directory only (the passkeys, the approval page) find the store here:
 * while one is open for their data directory, they read and write it, not the files.
 */
const opened = new Map<string, StateStore>();

/** Records `store` as the state of `dataDir` (a PostgreSQL store; the files need no record). */
export function shareState(dataDir: string, store: StateStore): void {
  if (store.kind === 'postgres') opened.set(resolve(dataDir), store);
}

/** Forgets the store of `dataDir` (it was closed), if it is `store`. */
export function unshareState(dataDir: string, store: StateStore): void {
  if (opened.get(resolve(dataDir)) === store) opened.delete(resolve(dataDir));
}

/** The PostgreSQL store open for `dataDir`, if any. */
export function sharedStateOf(dataDir: string): StateStore | undefined {
  return opened.get(resolve(dataDir));
}

/**
 * What crash-worker.ts reports, one JSON line per result, and how the test reads it back. Kept
 * apart from the worker so that importing it runs nothing.
 */
import { existsSync, readFileSync } from 'node:fs';

/** One line of a worker's log. */
export type CrashReport =
  | { op: 'receive' | 'change'; index: number; address?: string }
  | { op: 'evm'; index: number; address: string }
  | { op: 'created'; alias: string; id: string }
  | { op: 'imported'; address: string }
  | { op: 'delete-intent'; alias: string }
  | { op: 'deleted'; alias: string }
  | { op: 'error'; code: string; message: string };

/** The wallet every worker hands out addresses and EVM accounts from. */
export const SHARED_ALIAS = 'shared';
/** Wallets the workers create (and may delete) have aliases starting with this. */
export const TEMP_PREFIX = 't-';

/**
 * The complete lines of a log. A line is written with one write() after the call returned, so a
 * kill leaves at most a last line without its newline: it is not counted (nothing was promised).
 */
export function readReports(path: string): { reports: CrashReport[]; torn: boolean } {
  if (!existsSync(path)) return { reports: [], torn: false };
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  const last = lines.pop() ?? '';
  return {
    reports: lines.filter((line) => line !== '').map((line) => JSON.parse(line) as CrashReport),
    torn: last !== '',
  };
}

import { lstatSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { completionValuesPath } from '../completion/values-file.js';
import { serversFilePath } from '../servers/names.js';

/** How long after a call the daemon looks at the completion values: the caller has its answer and has exited by then. */
const AFTER_ANSWER_MS = 250;

/**
 * The completion values (`<dataDir>/cache/completion-values.tsv`, src/cli/completion/refresh-values.ts)
 * as the kept-alive servers' daemon keeps them up to date. The CLI brings them up to date after
 * every command; a run in the daemon leaves it here (`want`), where it is done once the caller
 * has its answer (not beside the caller's exit, on a machine of few cores), at most once for
 * the calls of a quarter of a second, and only when a file they are made from changed since the
 * daemon last did it (config.json, servers.json, the keystore's folder, whose files are replaced
 * whole; the values' own file): a warm call changes none of them.
 */
export class CompletionValues {
  private timer: NodeJS.Timeout | undefined;
  /** The files' identities when the values were last brought up to date. */
  private seen: string | undefined;
  /** The daemon is ending: a call it cut short, ending after, arms no timer (which would outlive it). */
  private ended = false;

  want(dataDir: string): void {
    if (this.timer || this.ended) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.refresh(dataDir);
    }, AFTER_ANSWER_MS);
  }

  /** `refreshValues`: what brings the values up to date (a test's own, to change a source meanwhile). */
  constructor(private readonly refreshValues?: (dataDir: string) => Promise<void>) {}

  /** Nothing more, now or later: the daemon is ending. */
  cancel(): void {
    this.ended = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async refresh(dataDir: string): Promise<void> {
    // The sources as they are before the values are made from them: one changed meanwhile is
    // not taken as seen, and the next call brings the values up to date again.
    const inputs = inputsOf(dataDir);
    if (`${inputs}|${valuesOf(dataDir)}` === this.seen) return;
    const refresh = this.refreshValues ?? (await import('../completion/refresh-values.js')).refreshCompletionValues;
    await refresh(dataDir);
    // The values' own file as this refresh wrote it.
    this.seen = `${inputs}|${valuesOf(dataDir)}`;
  }
}

/** What tells one state of the values' sources from another without reading them: each one's identity. */
function inputsOf(dataDir: string): string {
  return [
    identity(join(dataDir, 'config.json'), lstatSync),
    identity(serversFilePath(dataDir), lstatSync),
    identity(join(dataDir, 'keystore'), statSync),
  ].join('|');
}

/** The values' own file: one removed or written by someone else is made again. */
function valuesOf(dataDir: string): string {
  return identity(completionValuesPath(dataDir), lstatSync);
}

/** Device, inode, size and the times of the last change of content and of status; `-` when there is none. */
function identity(path: string, stat: (path: string) => Stats): string {
  try {
    const info = stat(path);
    return `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
  } catch {
    return '-';
  }
}

import type { Writable } from 'node:stream';
import type { Ora } from 'ora';
import type { OutputStream } from '../shared/std-output.js';
import { terminalSafe } from './render.js';

/** What the user sees while a call runs: a spinner with the latest progress message. */
export type Activity = {
  /** Shows (or re-labels) the spinner. */
  start(text: string): void;
  /** A progress notification's message, when the server sends one. */
  progress(message: string | undefined): void;
  /** Hides the spinner while something else owns the terminal (a prompt); `start` shows it again. */
  pause(): void;
  /** Clears it for good, before the result is printed. */
  stop(): void;
};

const SILENT: Activity = {
  start: () => undefined,
  progress: () => undefined,
  pause: () => undefined,
  stop: () => undefined,
};

/**
 * An ora spinner on stderr, on a terminal only: piped or captured stderr gets nothing, so
 * scripts see the result and nothing else. It never touches stdin (prompts may need it). ora
 * is loaded only for a terminal: scripts do not pay for it at start-up.
 */
export async function activityOn(stderr: OutputStream): Promise<Activity> {
  if (!isTerminalStream(stderr)) return SILENT;
  const { default: ora } = await import('ora');
  let spinner: Ora | undefined;
  function stop(): void {
    spinner?.stop();
    spinner = undefined;
  }
  const activity: Activity = {
    start(text) {
      const label = terminalSafe(text, true);
      if (spinner) spinner.text = label;
      else spinner = ora({ text: label, stream: stderr, discardStdin: false, isEnabled: true }).start();
    },
    progress(message) {
      if (message) this.start(message);
    },
    pause: stop,
    stop,
  };
  return activity;
}

/** A real terminal stream (ora moves the cursor, which a captured stream cannot do). */
function isTerminalStream(stream: OutputStream): stream is OutputStream & Writable {
  const candidate = stream as Partial<NodeJS.WriteStream>;
  // A pty that reports 0 columns (some `script`-wrapped jobs) would make ora redraw without end.
  return (
    stream.isTTY === true &&
    (stream.columns ?? 0) > 0 &&
    typeof candidate.cursorTo === 'function' &&
    typeof candidate.clearLine === 'function'
  );
}

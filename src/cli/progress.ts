import type { OutputStream } from './io.js';

export type ProgressLine = {
  /** Shows the latest progress message of a long call. */
  update: (message: string | undefined) => void;
  /** Clears the line before the result is printed. */
  done: () => void;
};

/**
 * One self-overwriting status line on stderr, on a terminal only: piped or captured stderr gets
 * nothing, so scripts see the result and nothing else.
 */
export function progressLine(stderr: OutputStream): ProgressLine {
  if (!stderr.isTTY) return { update: () => undefined, done: () => undefined };
  let shown = false;
  return {
    update: (message) => {
      if (!message) return;
      const width = Math.max((stderr.columns ?? 80) - 4, 10);
      stderr.write(`\r\u001b[K… ${message.length > width ? `${message.slice(0, width - 1)}…` : message}`);
      shown = true;
    },
    done: () => {
      if (shown) stderr.write('\r\u001b[K');
      shown = false;
    },
  };
}

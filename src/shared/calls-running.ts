let running = 0;

/**
 * Runs `task`, one tool call, counted until it settles. A client may stop waiting for a call
 * before the call is done (the CLI's `--timeout`): the call goes on to its end, and its audit line.
 */
export async function countedCall<T>(task: () => Promise<T>): Promise<T> {
  running++;
  try {
    return await task();
  } finally {
    running--;
  }
}

/**
 * Whether a tool call of this process is still running. bin/wallet.js ends a command's process
 * at once when nothing is left open, and Node does not list the thread pool's work (a keystore's
 * scrypt) among what is open: it asks this too.
 */
export function toolCallsRunning(): boolean {
  return running > 0;
}

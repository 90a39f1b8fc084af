/**
 * SIGINT and SIGTERM stop what a command keeps running (a server, the approval page) rather than
 * kill the process, so that it closes cleanly.
 */

/** Calls `stop` on the first SIGINT or SIGTERM; the function returned removes the handlers. */
export function stopOnSignals(stop: () => void): () => void {
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return () => {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  };
}

/** Waits until `running` has closed; SIGINT or SIGTERM closes it. */
export async function untilClosed(running: { close(): unknown; closed: Promise<unknown> }): Promise<void> {
  const release = stopOnSignals(() => void running.close());
  try {
    await running.closed;
  } finally {
    release();
  }
}

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

/**
 * Waits until `running` has closed: the first SIGINT or SIGTERM closes it (which may wait for work
 * under way), the same signal again calls `cut`, which stops at once (`wallet serve`'s task runs).
 * One SIGINT then one SIGTERM is one stop, not two: Ctrl-C on the terminal reaches a `serve` the
 * CLI spawned (same process group), and the CLI then sends it its own SIGTERM (src/mcp/client.ts).
 */
export async function untilClosedOrCut(
  running: { close(): unknown; closed: Promise<unknown> },
  cut: (signal: NodeJS.Signals) => void,
): Promise<void> {
  const seen = new Set<NodeJS.Signals>();
  const onSignal = (signal: NodeJS.Signals): void => {
    if (seen.has(signal)) {
      cut(signal);
      return;
    }
    const stopping = seen.size > 0;
    seen.add(signal);
    if (!stopping) void running.close();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    await running.closed;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

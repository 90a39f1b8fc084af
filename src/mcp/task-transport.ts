import type { JSONRPCMessage, Transport, TransportSendOptions } from '@modelcontextprotocol/client';
import type { TaskState } from './session.js';

/** The tasks extension (2026-07-28): its identifier, declared in the client's capabilities. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** How a tool call answered with a task ends, for the SDK's `Client` waiting on it. */
export type TaskOutcome =
  { kind: 'result'; result: Record<string, unknown> } | { kind: 'error'; code: number; message: string };

/**
 * Follows one task to its end: `progress` tells the waiting call (a progress notification, which
 * also keeps its timeout from firing); the answer is what the call gets.
 */
export type TaskFollower = (task: TaskState, progress: (message: string) => void) => Promise<TaskOutcome>;

/**
 * Lets a `tools/call` over `transport` (already connected: the SDK's `Client` set its handler) be
 * answered with a task. The SDK (2.4) refuses a `resultType: "task"` result as a kind it cannot
 * consume, so that answer never reaches it: `follow()` polls the task (through the same `Client`,
 * whose `tasks/get` requests carry the per-request envelope), and the call's own response is
 * handed to the `Client` once the task ends, as the tool's result or the task's JSON-RPC error.
 * The `Client` sees a call that took long and reported progress meanwhile (which also keeps its
 * timeout from firing). Interposed after `connect`, so the SDK's era probe (a sibling process for
 * its own stdio transport) is left as it is.
 */
export function interposeTasks(transport: Transport, follow: () => TaskFollower | undefined): void {
  /** The outstanding tool calls: their progress token, when the `Client` asked for progress. */
  const calls = new Map<string | number, { progressToken: unknown }>();
  const send = transport.send.bind(transport);
  transport.send = (message: JSONRPCMessage, options?: TransportSendOptions) => {
    if ('method' in message && message.method === 'tools/call' && 'id' in message) {
      const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
      calls.set(message.id, { progressToken: meta?.['progressToken'] });
    }
    return send(message, options);
  };
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    const id = 'id' in message && !('method' in message) ? message.id : undefined;
    const call = id === undefined ? undefined : calls.get(id);
    if (id !== undefined && call) calls.delete(id);
    const result = 'result' in message ? (message.result as Record<string, unknown>) : undefined;
    const follower = follow();
    if (id === undefined || !call || result?.['resultType'] !== 'task' || !follower || !isTask(result)) {
      deliver(message, extra);
      return;
    }
    let step = 0;
    const progress = (text: string): void => {
      if (call.progressToken === undefined) return;
      step += 1;
      deliver({
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: call.progressToken as string | number, progress: step, message: text },
      } as JSONRPCMessage);
    };
    void follower(result, progress)
      .catch((error: unknown): TaskOutcome => ({
        kind: 'error',
        code: -32603,
        message: `following the task failed: ${error instanceof Error ? error.message : String(error)}`,
      }))
      .then((outcome) => {
        const answer =
          outcome.kind === 'result'
            ? { jsonrpc: '2.0', id, result: { ...outcome.result, resultType: 'complete' } }
            : { jsonrpc: '2.0', id, error: { code: outcome.code, message: outcome.message } };
        deliver(answer as JSONRPCMessage);
      });
  };
}

export function isTask(value: unknown): value is TaskState {
  if (typeof value !== 'object' || value === null) return false;
  const { taskId, status } = value as Record<string, unknown>;
  return typeof taskId === 'string' && typeof status === 'string';
}

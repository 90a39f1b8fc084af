import { CallInterrupted, type TaskState } from '../mcp/session.js';
import { DEFAULT_TIMEOUT_MS } from './connection.js';
import { GLOBAL_FLAGS, parseFlags } from './global-flags.js';
import type { ListingRun } from './resources.js';
import { renderHuman, terminalSafe } from './render.js';
import { rejectUnknownFlags } from './unknown-flags.js';
import { EXIT, UsageError } from './usage-error.js';

/**
 * `wallet tasks get|result|cancel <id>`: a task another server made of a tool call (the
 * 2026-07-28 tasks extension), resumed with the same `--server` or `--url`: after `--detach`, or
 * from another terminal. Loaded only for this verb.
 */

export const TASKS_SUBCOMMANDS = ['get', 'result', 'cancel'] as const;

type TasksSubcommand = (typeof TASKS_SUBCOMMANDS)[number];

export const TASKS_SUMMARIES: Readonly<Record<TasksSubcommand, string>> = {
  get: "A task's status (tasks/get)",
  result: 'Wait for a task to end and print its result',
  cancel: 'Cancel a task (tasks/cancel)',
};

const USAGE = 'wallet --server <name|command> | --url <url> tasks get|result|cancel <task id> [--json]';

/** Polling bounds, as the call itself follows a task (src/mcp/client.ts). */
const POLL_MS = { min: 50, max: 5_000, otherwise: 500 };

export async function runTasks(run: ListingRun): Promise<number> {
  const { io, globals, connection } = run;
  const parsed = parseFlags(run.argv, GLOBAL_FLAGS);
  rejectUnknownFlags({ ...parsed, _: [] }, GLOBAL_FLAGS, 'tasks');
  const [, subcommand, taskId, ...rest] = parsed._.map(String);
  if (globals.help || subcommand === undefined) {
    io.stdout.write(
      [
        'wallet tasks — follow a task another server made of a tool call',
        '',
        `Usage: ${USAGE}`,
        '',
        ...TASKS_SUBCOMMANDS.map((name) => `  ${name.padEnd(7)} ${TASKS_SUMMARIES[name]}`),
        '',
      ].join('\n'),
    );
    return globals.help ? EXIT.ok : EXIT.usage;
  }
  if (!(TASKS_SUBCOMMANDS as readonly string[]).includes(subcommand)) {
    throw new UsageError(
      `Unknown tasks subcommand '${terminalSafe(subcommand, true)}'.`,
      `It takes ${TASKS_SUBCOMMANDS.join(', ')}.`,
    );
  }
  if (taskId === undefined) throw new UsageError(`'wallet tasks ${subcommand}' takes a task id.`);
  if (rest.length > 0) throw new UsageError(`Unexpected argument '${terminalSafe(rest[0] ?? '', true)}'.`);
  if (connection.isBuiltIn) {
    throw new UsageError(
      "The wallet's own tools answer at once: tasks are another server's.",
      'Give the --server or --url the task was made on.',
    );
  }
  const session = await connection.open();
  const timeoutMs = globals.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (subcommand === 'cancel') {
    await session.cancelTask(taskId, { timeoutMs });
    return printState(run, await session.getTask(taskId, { timeoutMs }));
  }
  let task = await session.getTask(taskId, { timeoutMs });
  if (subcommand === 'get') return printState(run, task);
  // `result`: wait for the end, the news on stderr; Ctrl-C stops waiting, not the task.
  const stop = new AbortController();
  const onSigint = (): void => stop.abort();
  process.once('SIGINT', onSigint);
  try {
    let shown = '';
    while (!['completed', 'failed', 'cancelled', 'input_required'].includes(task.status)) {
      shown = tell(run, task, shown);
      const interval = Math.min(POLL_MS.max, Math.max(POLL_MS.min, task.pollIntervalMs ?? POLL_MS.otherwise));
      const interrupted = () =>
        new CallInterrupted(`interrupted; task ${taskId} goes on ('wallet tasks cancel ${taskId}' ends it)`);
      if (await sleep(interval, stop.signal)) throw interrupted();
      try {
        // Ctrl-C also ends a tasks/get under way, rather than waiting up to --timeout for it.
        task = await session.getTask(taskId, { timeoutMs, signal: stop.signal });
      } catch (error) {
        if (stop.signal.aborted) throw interrupted();
        throw error;
      }
    }
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
  return printOutcome(run, task);
}

/** One stderr line when the task's status or message changed; returns what it says now. */
function tell({ io }: ListingRun, task: TaskState, shown: string): string {
  const said = `${task.status}${task.statusMessage ? ` — ${task.statusMessage}` : ''}`;
  if (said !== shown) io.stderr.write(`task ${terminalSafe(task.taskId, true)}: ${terminalSafe(said, true)}\n`);
  return said;
}

function printState({ io, globals, style }: ListingRun, task: TaskState): number {
  const shown = {
    task_id: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { status_message: task.statusMessage }),
    ...(task.status === 'completed' ? { result: 'ready (wallet tasks result)' } : {}),
    ...(task.status === 'failed' && typeof task.error?.message === 'string' ? { error: task.error.message } : {}),
  };
  io.stdout.write(globals.json ? JSON.stringify(task, null, 2) + '\n' : renderHuman(shown, style));
  return EXIT.ok;
}

/** A task at its end: the tool's result as a call prints one, or why there is none (exit 1). */
function printOutcome(run: ListingRun, task: TaskState): number {
  const { io, globals, style } = run;
  const id = terminalSafe(task.taskId, true);
  if (task.status === 'failed') {
    const message = typeof task.error?.message === 'string' ? task.error.message : 'no reason given';
    io.stderr.write(`${style.error('error')}: task ${id} failed: ${terminalSafe(message, true)}\n`);
    return EXIT.toolError;
  }
  if (task.status === 'cancelled') {
    io.stderr.write(`${style.error('error')}: task ${id} was cancelled\n`);
    return EXIT.toolError;
  }
  if (task.status === 'input_required') {
    io.stderr.write(
      `${style.error('error')}: task ${id} waits for input, which this CLI cannot send yet (tasks/update)\n`,
    );
    return EXIT.toolError;
  }
  const result = task.result ?? {};
  const content = Array.isArray(result['content']) ? (result['content'] as { type?: unknown; text?: unknown }[]) : [];
  const text = content
    .map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : `[${String(block.type)}]`))
    .join('\n');
  if (result['isError'] === true) {
    io.stderr.write(`${style.error('error')}: ${terminalSafe(text || 'The tool reported an error.')}\n`);
    return EXIT.toolError;
  }
  const structured = result['structuredContent'];
  if (globals.json) io.stdout.write(JSON.stringify(structured ?? { content }, null, 2) + '\n');
  else io.stdout.write(renderHuman(structured ?? text, style));
  return EXIT.ok;
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', aborted);
      resolve(false);
    }, ms);
    const aborted = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    signal.addEventListener('abort', aborted, { once: true });
  });
}

import { spawn, type ChildProcess } from 'node:child_process';
import type { Stream } from 'node:stream';
import type { StdioServerCommand } from './client.js';

/**
 * A stdio MCP server's process, spawned without the MCP SDK: the CLI starts a server it is about
 * to call before it loads the SDK, so that the server boots while the CLI does
 * (`startServerAhead` in cli/connection.ts), and `ChildProcessTransport` then speaks MCP over it. Spawned as the
 * SDK's `StdioClientTransport` spawns (the same environment, pipes and options), on POSIX only:
 * on Windows the SDK looks the command up with cross-spawn, and the CLI leaves it to the SDK.
 */
export type ServerProcess = {
  /** Absent when node refused the command outright (an empty one, a NUL byte). */
  readonly child: ChildProcess | undefined;
  /** Settles once the process runs; rejects with why it could not start (ENOENT, …). */
  readonly spawned: Promise<void>;
  /** True once the process has exited and its pipes are closed. */
  readonly closed: () => boolean;
  /** The last lines a captured stderr held, for a failure's message ('' when not captured). */
  readonly lastWords: () => string;
  /**
   * Ends a process no session speaks to (the run failed first, or its session could not be
   * opened): it was asked nothing to finish, so it gets SIGTERM at once, and SIGKILL if it is
   * still there after {@link KILL_AFTER_MS}; once it has exited its pipes are let go of.
   */
  readonly stop: () => void;
};

/** The environment a server command gets: ours, with its own variables over it. */
export function serverEnvironment(server: StdioServerCommand): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return Object.assign(env, server.env);
}

/** Spawns `server`; `onStderrLine` gets each line of a captured stderr. Never throws. */
export function spawnServer(server: StdioServerCommand, onStderrLine?: (line: string) => void): ServerProcess {
  let child: ChildProcess;
  try {
    child = spawn(server.command, [...server.args], {
      env: serverEnvironment(server),
      stdio: ['pipe', 'pipe', server.stderr === 'capture' ? 'pipe' : (server.stderr ?? 'inherit')],
      shell: false,
    });
  } catch (error) {
    // A command node refuses outright: a failed start, told like ENOENT when the transport starts.
    const failed = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    failed.catch(() => undefined);
    return { child: undefined, spawned: failed, closed: () => true, lastWords: () => '', stop: () => undefined };
  }
  let closed = false;
  child.once('close', () => {
    closed = true;
  });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', reject);
  });
  // Not started by anyone yet: a failure is told when the transport starts, not as unhandled.
  spawned.catch(() => undefined);
  const lastWords = server.stderr === 'capture' ? stderrTail(child.stderr, onStderrLine) : () => '';
  // Its pipes are let go of once it has exited: a helper it left behind holding them (a shell's
  // child) must not keep the CLI waiting, as the SDK's own disposal of a probe does.
  const release = (): void => {
    for (const pipe of [child.stdin, child.stdout, child.stderr]) pipe?.destroy();
  };
  const stop = (): void => {
    if (closed) return;
    if (child.exitCode !== null || child.signalCode !== null) return release();
    child.stdin?.end();
    child.kill('SIGTERM');
    const kill = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_MS);
    child.once('exit', () => {
      clearTimeout(kill);
      release();
    });
  };
  return { child, spawned, closed: () => closed, lastWords, stop };
}

/** How long a stopped server may ignore SIGTERM before SIGKILL (the SDK's own wait). */
const KILL_AFTER_MS = 2_000;

/** How many of a captured server's last stderr lines a failure tells. */
const LAST_WORDS_LINES = 5;

/** Reads a child's stderr, passing each line on and keeping the last few for a failure's message. */
export function stderrTail(stream: Stream | null, onLine: ((line: string) => void) | undefined): () => string {
  const last: string[] = [];
  let partial = '';
  stream?.on('data', (chunk: Buffer | string) => {
    const lines = (partial + chunk.toString()).split(/\r?\n/);
    partial = lines.pop() ?? '';
    for (const line of lines) {
      onLine?.(line);
      if (line.trim() === '') continue;
      last.push(line);
      if (last.length > LAST_WORDS_LINES) last.shift();
    }
  });
  return () => [...last, ...(partial.trim() ? [partial] : [])].slice(-LAST_WORDS_LINES).join(' | ');
}

/** Where a server's stderr lines go once the run knows (see {@link lineRelay}). */
export type LineSink = ((line: string) => void) | undefined;

/** How many lines a relay holds before it is told where they go; older ones are dropped. */
const RELAY_HELD_LINES = 100;

/**
 * For a server spawned before the run knows where its stderr lines go (`--debug` shows them):
 * `push` holds each line (the last {@link RELAY_HELD_LINES}) until `to` names the sink, then
 * passes the held ones and every later one on; `to(undefined)` drops them.
 */
export function lineRelay(): { push: (line: string) => void; to: (sink: LineSink) => void } {
  let held: string[] | undefined = [];
  let sink: LineSink;
  return {
    push: (line) => {
      if (held === undefined) return sink?.(line);
      held.push(line);
      if (held.length > RELAY_HELD_LINES) held.shift();
    },
    to: (next) => {
      const lines = held ?? [];
      held = undefined;
      sink = next;
      for (const line of lines) sink?.(line);
    },
  };
}

import { parseFlags, type CliFlag } from '../global-flags.js';
import type { CliIo } from '../io.js';
import { closestNames } from '../suggest.js';
import { rejectUnknownFlags } from '../unknown-flags.js';
import { EXIT, UsageError } from '../usage-error.js';
import { daemonLogPath, socketPath } from './paths.js';
import { PROTOCOL_VERSION, type DaemonStatus } from './wire.js';

/** The subcommands of `wallet daemon`, for help and completion. */
export const DAEMON_SUBCOMMANDS = ['status', 'stop', 'run'] as const;
type Subcommand = (typeof DAEMON_SUBCOMMANDS)[number];

export const DAEMON_SUMMARIES: Readonly<Record<Subcommand, string>> = {
  status: 'Whether it runs, its servers, their calls and logs',
  stop: 'End it and the servers it keeps (the next call starts it again)',
  run: 'Run it in the foreground (calls start it by themselves)',
};

/** Every flag `wallet daemon …` takes. */
export const DAEMON_FLAGS: readonly CliFlag[] = [
  { name: 'json', type: 'boolean', description: 'Print the result as JSON.' },
  { name: 'debug', type: 'boolean', description: 'Show error causes and stack traces.' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'Show help.' },
];

const HELP = `wallet daemon — the kept-alive servers' daemon (docs/CLI.md, "Kept-alive servers").

Usage:
  wallet daemon [status] [--json]   whether it runs; each server it keeps, its calls and its log
  wallet daemon stop                end it, and the servers it keeps running
  wallet daemon run                 run it in the foreground (a call starts it by itself)

A server saved with 'wallet servers add <name> … --keep-alive' is called through the daemon:
it keeps the server running (a stdio child, or an HTTP session) between calls, so a call does
not pay for its start. The daemon ends after daemon.idle_minutes of config.json without a call
(default 10), and a call starts it again. Its socket is <data dir>/daemon/daemon.sock (this
user's only); each server's stderr goes to <data dir>/daemon/<name>.log.
`;

/** `wallet daemon …`: the kept-alive servers' daemon, seen and ended by its owner. */
export async function runDaemonVerb(argv: readonly string[], io: CliIo, dataDir: string): Promise<number> {
  const parsed = parseFlags(argv, DAEMON_FLAGS);
  const positionals = ((parsed['_'] as unknown[] | undefined) ?? []).map(String);
  const [word = 'status', ...words] = positionals.slice(positionals.indexOf('daemon') + 1);
  if (parsed['help'] === true || word === 'help') {
    io.stdout.write(HELP);
    return EXIT.ok;
  }
  const subcommand = DAEMON_SUBCOMMANDS.find((candidate) => candidate === word);
  if (subcommand === undefined) {
    const near = closestNames(word, DAEMON_SUBCOMMANDS);
    throw new UsageError(
      `Unknown subcommand 'daemon ${word}'.`,
      near.length > 0 ? `Did you mean 'daemon ${near.join("' or 'daemon ")}'?` : "See 'wallet daemon --help'.",
    );
  }
  rejectUnknownFlags({ ...parsed, _: [] }, DAEMON_FLAGS, `daemon ${subcommand}`);
  if (words.length > 0) throw new UsageError(`daemon ${subcommand} takes no words.`);
  const json = parsed['json'] === true;
  if (process.platform === 'win32') {
    throw new UsageError(
      'Kept-alive servers need a Unix socket, which this wallet does not use on Windows.',
      'Calls of a server saved with --keep-alive are made directly here.',
    );
  }
  const { ask, runDaemon } = await import('./server.js');
  const path = socketPath(dataDir);
  if (subcommand === 'run') return runDaemon(io, dataDir, await idleMinutes(dataDir));
  if (subcommand === 'stop') {
    const before = await ask(path, { v: PROTOCOL_VERSION, kind: 'status' }, 5000);
    const answer = await ask(path, { v: PROTOCOL_VERSION, kind: 'stop' }, 5000);
    const stopped = answer?.kind === 'stopping';
    // Said once it has ended (its servers closed, its last log line written), so whatever runs
    // next, removing the data directory included, finds nothing of it still going.
    if (stopped && before?.kind === 'status') await exited(before.status.pid, 10_000);
    if (json) io.stdout.write(`${JSON.stringify({ stopped, socket: path }, null, 2)}\n`);
    else io.stdout.write(stopped ? 'Stopped the daemon and the servers it kept.\n' : 'No daemon was running.\n');
    return EXIT.ok;
  }
  const answer = await ask(path, { v: PROTOCOL_VERSION, kind: 'status' }, 5000);
  const status = answer?.kind === 'status' ? answer.status : undefined;
  if (json) {
    io.stdout.write(
      `${JSON.stringify(status ? { running: true, ...status } : { running: false, socket: path }, null, 2)}\n`,
    );
  } else {
    io.stdout.write(
      status ? describeStatus(status) : `No daemon is running (socket ${path}; log ${daemonLogPath(dataDir)}).\n`,
    );
  }
  return EXIT.ok;
}

/** Waits until process `pid` has ended, at most `timeoutMs`. */
async function exited(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function describeStatus(status: DaemonStatus): string {
  const lines = [
    `Daemon ${status.pid} (wallet ${status.version}, build ${status.build}) running since ${status.startedAt}; ends after ${status.idleMinutes} idle minutes.`,
    `Socket ${status.socket}; log ${status.log}.`,
  ];
  if (status.servers.length === 0) lines.push('No server kept running yet.');
  for (const server of status.servers) {
    lines.push(
      `  ${server.name} (${server.transport}): ${server.calls} call${server.calls === 1 ? '' : 's'} since ${server.since}, last ${server.lastUsed}; stderr in ${server.log}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** `daemon.idle_minutes` of config.json (checked with the file's schema), else {@link DEFAULT_IDLE_MINUTES}. */
async function idleMinutes(dataDir: string): Promise<number> {
  const [{ getConfigValue }, { DEFAULT_IDLE_MINUTES }] = await Promise.all([
    import('../../domain/config/config-edit.js'),
    import('./server.js'),
  ]);
  const entry = await getConfigValue(dataDir, 'daemon.idle_minutes');
  return entry === undefined ? DEFAULT_IDLE_MINUTES : Number(entry.value);
}

import { chmodSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Socket } from 'node:net';
import { resolve as absolutePath } from 'node:path';
import { Readable } from 'node:stream';
import { packageInfo } from '../../shared/package-info.js';
import { ensurePrivateDir } from '../../shared/private-files.js';
import { readCommandLine } from '../command-line.js';
import type { CliIo } from '../io.js';
import { loadServers, rememberServers } from '../servers/config.js';
import { EXIT } from '../usage-error.js';
import { daemonDir, daemonLogPath, serverLogPath, socketPath } from './paths.js';
import { CompletionValues } from './completion-values.js';
import { SessionPool } from './pool.js';
import { Slots, type SlotCall } from './slots.js';
import { DaemonRequest, type InputMessage, type RunRequest } from './protocol.js';
import { BUILD_ID, PROTOCOL_VERSION, type DaemonAnswer, type DaemonStatus, type RunRelay } from './wire.js';

/** How long the daemon waits for a call before it ends, when config.json does not say. */
export const DEFAULT_IDLE_MINUTES = 10;

/** The verbs a kept-alive server's call may be: its tools, lists, resources, prompts, tasks, help. */
const WARM_VERBS = new Set(['tools', 'resources', 'resource', 'prompts', 'prompt', 'tasks']);

/**
 * `wallet daemon run`: the kept-alive servers' daemon, in the foreground (the thin client starts
 * it detached). It listens on `<dataDir>/daemon/daemon.sock` (0600 in a 0700 folder: only this
 * user can connect; Node cannot ask a Unix socket's peer for its uid, so the folder's and the
 * socket's modes are the check), runs each command line it is sent as the CLI runs it, on a
 * session it keeps open per server, and answers its output and exit code. It ends after
 * `idleMinutes` without a call, on `wallet daemon stop`, or on SIGTERM, ending its servers.
 * Resolves once it has ended: EXIT.ok, also when another daemon already listens.
 */
export async function runDaemon(io: CliIo, dataDir: string, idleMinutes: number): Promise<number> {
  // Its folder by absolute path: each run moves the process to its caller's directory, and a
  // relative WALLET_HOME (meant from where it was started) would then name another folder.
  dataDir = absolutePath(dataDir);
  // Everything it creates is its owner's alone, the socket first of all.
  process.umask(0o077);
  ensurePrivateDir(daemonDir(dataDir));
  // servers.json is parsed again only when it changed (each call still checks the file is private).
  rememberServers();
  const path = socketPath(dataDir);
  const pool = new SessionPool(dataDir);
  const gate = new DirectoryGate();
  const completionValues = new CompletionValues();
  const startedAt = new Date();
  let running = 0;
  let stopping: Promise<void> | undefined;
  let idle: NodeJS.Timeout | undefined;
  const server = createServer();

  const { withNamedLock } = await import('../../domain/keystore/lock.js');
  const listening = await withNamedLock(dataDir, 'daemon', async () => {
    if (await answers(path)) return false;
    // A socket nobody listens on (a daemon killed): this one takes its place.
    rmSync(path, { force: true });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(path, 0o600);
    return true;
  });
  if (!listening) {
    io.stderr.write(`A daemon already listens on ${path}.\n`);
    return EXIT.ok;
  }
  // Its slots: the same calls, over named pipes a client uses without Node's `net` (slots.ts).
  const slots = new Slots(daemonDir(dataDir), (call) => serveSlot(call, answer));

  let ended: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (ended = resolve));
  let drained: () => void = () => undefined;
  /** `finishCalls`: the calls running go on to their end (on their sessions) before it ends. */
  const stop = (why: string, finishCalls = false): Promise<void> => {
    stopping ??= (async () => {
      clearTimeout(idle);
      completionValues.cancel();
      io.stderr.write(`${new Date().toISOString()} daemon ${process.pid} stopping: ${why}\n`);
      server.close();
      slots.close();
      rmSync(path, { force: true });
      if (finishCalls && running > 0) await new Promise<void>((resolve) => (drained = resolve));
      await pool.closeAll();
      ended();
    })();
    return stopping;
  };
  const idleMs = idleMinutes * 60_000;
  const touch = (): void => {
    clearTimeout(idle);
    if (stopping) return;
    idle = setTimeout(() => {
      if (running > 0) touch();
      else void stop(`no call for ${idleMinutes} minutes`);
    }, idleMs);
  };
  const status = (): DaemonStatus => ({
    pid: process.pid,
    version: packageInfo().version,
    build: BUILD_ID,
    startedAt: startedAt.toISOString(),
    idleMinutes,
    socket: path,
    log: daemonLogPath(dataDir),
    servers: pool.status(),
  });
  const answer = async (line: string, caller: Caller): Promise<DaemonAnswer | undefined> => {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      return { kind: 'refused', message: 'not JSON' };
    }
    const request = DaemonRequest.safeParse(json);
    if (!request.success) return { kind: 'refused', message: 'not a request of this daemon' };
    switch (request.data.kind) {
      case 'input':
        caller.typed(request.data);
        return undefined;
      case 'status':
        return { kind: 'status', status: status() };
      case 'stop':
        setImmediate(() => void stop('asked to (wallet daemon stop)'));
        return { kind: 'stopping' };
      case 'run': {
        const run = request.data;
        const other =
          run.version !== packageInfo().version
            ? `version ${run.version}`
            : run.build !== BUILD_ID
              ? `build ${run.build ?? '(none)'}`
              : undefined;
        if (other !== undefined) {
          // An upgrade or a rebuild in place: this daemon ends (its socket goes at once), and the
          // client starts one of its own build. The calls it is making (clients of its own build)
          // end first: they are not cut mid-call.
          setImmediate(() => void stop(`a client of ${other} called`, true));
          return { kind: 'fallback', reason: `the daemon is of another ${other.split(' ')[0]}`, restart: true };
        }
        running++;
        try {
          return await runWarm(run, { dataDir, pool, gate, completionValues }, caller);
        } finally {
          running--;
          if (running === 0) drained();
          touch();
        }
      }
    }
  };
  // Only calls count as activity: `wallet daemon status` does not keep it alive.
  server.on('connection', (socket: Socket) => serveLines(socket, socket, answer));
  slots.start();
  const onSignal = (): void => void stop('signalled');
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('SIGHUP', () => undefined);
  touch();
  io.stderr.write(
    `${startedAt.toISOString()} daemon ${process.pid} listening on ${path} (ends after ${idleMinutes} idle minutes)\n`,
  );
  await done;
  process.off('SIGTERM', onSignal);
  process.off('SIGINT', onSignal);
  return EXIT.ok;
}

type Answerer = (line: string, caller: Caller) => Promise<DaemonAnswer | undefined>;

/**
 * Each line `input` sends is a request; each gets one line back on `output`, but what the caller
 * types (`input`). A socket is both; a slot's pipes are one each, and serve one call (`once`):
 * after its answer they are closed. `first`: what was read before (a slot's request).
 */
function serveLines(input: Socket, output: Socket, answer: Answerer, first = '', once = false): void {
  const caller = new Caller(output);
  let buffered = '';
  input.setEncoding('utf8');
  input.on('error', () => undefined);
  if (output !== input) output.on('error', () => undefined);
  input.on('close', () => caller.gone());
  const take = (chunk: string): void => {
    buffered += chunk;
    let end: number;
    while ((end = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      void answer(line, caller).then((reply) => {
        if (reply === undefined) return;
        caller.send(reply);
        if (!once) return;
        output.end();
        input.destroy();
      });
    }
  };
  input.on('data', take);
  // A slot's placeholder end, handed on when its own could not be opened, was paused.
  input.resume();
  if (first !== '') take(first);
}

/** A call through a slot: its request line, then what its client types, as a socket's lines. */
function serveSlot(call: SlotCall, answer: Answerer): void {
  serveLines(call.input, call.output, answer, `${call.request}\n${call.leftover}`, true);
}

/**
 * The client at the other end of a connection, as a run's question (elicitation) reaches it:
 * `send` prints on its terminal (wire.ts, RunRelay), and `terminal` is what is typed there,
 * asked for (`read`) when a question first reads it, then sent by the client as it comes; it
 * ends when the client's stdin does, or the client goes (Ctrl-C): the question is then cancelled.
 */
class Caller {
  private stdin: Readable | undefined;
  private ended = false;
  private asked = false;

  constructor(private readonly socket: Socket) {}

  send(message: DaemonAnswer | RunRelay): void {
    if (!this.socket.destroyed) this.socket.write(`${JSON.stringify(message)}\n`);
  }

  terminal(isTTY: boolean): CliIo['stdin'] {
    if (!this.stdin) {
      this.stdin = new Readable({
        read: () => {
          if (this.asked || this.ended) return;
          this.asked = true;
          this.send({ kind: 'read' });
        },
      });
      if (this.ended) this.stdin.push(null);
    }
    return Object.assign(this.stdin, { isTTY });
  }

  typed(message: InputMessage): void {
    if (this.ended) return;
    if (message.text !== undefined && message.text !== '') this.stdin?.push(message.text);
    if (message.end === true) this.gone();
  }

  gone(): void {
    if (this.ended) return;
    this.ended = true;
    this.stdin?.push(null);
  }
}

/**
 * One command line, run as the CLI runs it (`runCli`) in the client's directory and environment,
 * its terminals as the client's but stdin unread: a run that would read it (a prompt, `-` for
 * stdin) is left to the client (`fallback`), before anything was sent (the CLI asks first). The
 * server must be a saved keep-alive one, the verb a call, a listing or help; anything else is
 * the client's too. A run whose server is lost (exit 3) drops its session: the next opens another.
 */
async function runWarm(request: RunRequest, daemon: Daemon, caller: Caller): Promise<DaemonAnswer> {
  const { dataDir, pool, gate, completionValues } = daemon;
  let debug: boolean;
  let server: string | undefined;
  let commandLine: ReturnType<typeof readCommandLine>;
  try {
    commandLine = readCommandLine(request.argv);
    const { globals, verb } = commandLine;
    if (verb !== undefined && !WARM_VERBS.has(verb) && isOwnVerb(verb)) {
      return { kind: 'fallback', reason: `'${verb}' is not a server's call` };
    }
    if (globals.url !== undefined || globals.server === undefined)
      return { kind: 'fallback', reason: 'no saved server' };
    // A payment (--pay-from) unlocks the keystore: that stays in the caller's own process.
    if (globals.payment !== undefined) return { kind: 'fallback', reason: 'a call that pays' };
    server = globals.server;
    debug = globals.debug;
    const servers = await loadServers(dataDir);
    if (!Object.hasOwn(servers, server) || servers[server]?.keep_alive !== true) {
      return { kind: 'fallback', reason: `'${server}' is not a kept-alive server` };
    }
  } catch {
    // The CLI says what is wrong with the command line, in the client's own words.
    return { kind: 'fallback', reason: 'a command line the CLI refuses' };
  }
  try {
    await gate.enter(request.cwd);
  } catch {
    return { kind: 'fallback', reason: 'the directory of the call is gone' };
  }
  const stdin = unreadStdin(request.tty.stdin);
  let stdout = '';
  let stderr = debug
    ? `debug: kept-alive: answered by the daemon (pid ${process.pid}); the server's stderr is in ${serverLogPath(dataDir, server)}\n`
    : '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text), isTTY: request.tty.stdout, columns: request.columns },
    stderr: { write: (text: string) => (stderr += text), isTTY: request.tty.stderr },
    stdin: stdin.stream,
    env: request.env,
  };
  // A server's question (elicitation) is asked on the caller's terminal, as a direct call asks
  // it: relayed there, after what the run printed so far; what is typed comes back the same way.
  let relayed = false;
  const relay = (fd: 1 | 2, text: string): void => {
    relayed = true;
    if (stdout !== '') caller.send({ kind: 'write', fd: 1, text: stdout });
    if (stderr !== '') caller.send({ kind: 'write', fd: 2, text: stderr });
    stdout = '';
    stderr = '';
    caller.send({ kind: 'write', fd, text });
  };
  const questionsIo: CliIo = {
    stdout: { write: (text: string) => relay(1, text), isTTY: request.tty.stdout, columns: request.columns },
    stderr: { write: (text: string) => relay(2, text), isTTY: request.tty.stderr },
    stdin: caller.terminal(request.tty.stdin),
    env: request.env,
  };
  const warm = pool.forRun();
  let exitCode: number;
  try {
    try {
      const { runCli } = await import('../main.js');
      exitCode = await runCli(request.argv, io, {
        warm,
        questionsIo,
        completionValues: (of) => completionValues.want(of),
        commandLine,
      });
    } finally {
      gate.leave();
    }
    // Handed back only when nothing reached the caller yet (a relayed question was asked of a call made).
    if (stdin.wanted() && !relayed) return { kind: 'fallback', reason: 'the call needs the terminal' };
    warm.answered();
    if (exitCode === EXIT.connection) for (const session of warm.used()) await pool.discard(session);
  } finally {
    await warm.release();
  }
  return { kind: 'done', stdout, stderr, exitCode };
}

/** What every run in the daemon shares. */
type Daemon = { dataDir: string; pool: SessionPool; gate: DirectoryGate; completionValues: CompletionValues };

function isOwnVerb(verb: string): boolean {
  return ['serve', 'setup', 'servers', 'approvals', 'config', 'state', 'networks', 'completion', 'daemon'].includes(
    verb,
  );
}

/**
 * A stdin that is never read: the client's stays with the client. Whatever would read it (a
 * confirmation, a hidden prompt, `--args-json -`) throws, and says so (`wanted`), so that the
 * daemon hands the call back to the client before anything was sent.
 */
function unreadStdin(isTTY: boolean): { stream: CliIo['stdin']; wanted: () => boolean } {
  let wanted = false;
  const refuse = (): never => {
    wanted = true;
    throw new Error('the call reads stdin: the client makes it itself');
  };
  const stream = Object.assign(new Readable({ read: refuse }), { isTTY });
  const on = stream.on.bind(stream);
  Object.defineProperties(stream, {
    resume: { value: refuse },
    read: { value: refuse },
    pipe: { value: refuse },
    setRawMode: { value: refuse },
    [Symbol.asyncIterator]: { value: refuse },
    on: {
      value: (event: string, listener: (...args: unknown[]) => void) =>
        event === 'data' || event === 'readable' ? refuse() : on(event, listener),
    },
  });
  return { stream, wanted: () => wanted };
}

/**
 * The process's directory is the client's for each run (relative paths in flags mean what they
 * mean to the client). Runs in one directory go side by side; a run in another waits until they
 * are done.
 */
class DirectoryGate {
  private running = 0;
  private waiting: (() => void)[] = [];

  async enter(cwd: string): Promise<void> {
    while (this.running > 0 && process.cwd() !== cwd) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (process.cwd() !== cwd) process.chdir(cwd);
    this.running++;
  }

  leave(): void {
    this.running--;
    if (this.running > 0) return;
    const waiting = this.waiting;
    this.waiting = [];
    for (const resume of waiting) resume();
  }
}

/** Whether a daemon answers on `path` (a status request, within a second). */
async function answers(path: string): Promise<boolean> {
  return (await ask(path, { v: PROTOCOL_VERSION, kind: 'status' }, 1000)) !== undefined;
}

/** Sends one request to the daemon on `path`; its answer, or undefined when none listens or answers in time. */
export async function ask(path: string, request: object, timeoutMs: number): Promise<DaemonAnswer | undefined> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    let received = '';
    const finish = (answer: DaemonAnswer | undefined): void => {
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('connect', () => socket.write(`${JSON.stringify(request)}\n`));
    socket.on('data', (chunk: string) => {
      received += chunk;
      const end = received.indexOf('\n');
      if (end === -1) return;
      clearTimeout(timer);
      try {
        finish(JSON.parse(received.slice(0, end)) as DaemonAnswer);
      } catch {
        finish(undefined);
      }
    });
    socket.on('error', () => {
      clearTimeout(timer);
      finish(undefined);
    });
  });
}

import type * as ChildProcess from 'node:child_process';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  statSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import type * as Net from 'node:net';
import { homedir } from 'node:os';
import type * as Tty from 'node:tty';
import { resolveDataDir } from '../../shared/data-dir.js';
import { SERVER_NAME, serversFilePath } from '../servers/names.js';
import { daemonDir, daemonLogPath, socketPath } from './paths.js';
import { BUILD_ID, PROTOCOL_VERSION, type DaemonAnswer, type RunRelay } from './wire.js';

const require = createRequire(import.meta.url);

/**
 * The entry of `dist/daemon-client.cjs`, which `bin/wallet.js` runs before it loads the CLI's
 * bundle when a command line has `--server <name>`: when that name is a saved server marked
 * `keep_alive` (servers.json), the command line goes to the daemon over its socket, which runs
 * it as the CLI does on a session it keeps open, and this prints what it answers and returns its
 * exit code. Undefined (the CLI then runs as usual, connecting directly): not a kept-alive
 * server, Windows, or the daemon asks for it (`fallback`: the call needs the terminal, …). No
 * daemon listening (none yet, idle-stopped, crashed): one is started, detached, for the next
 * call, and this one is made directly. Small on purpose (no zod, no MCP SDK): its whole cost
 * is part of a warm call's. Resolved with an exit code, the process is to end: the socket is
 * left to close with it.
 */
export function warmCall(
  argv: readonly string[],
  walletBin: string,
  version: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number | undefined> | undefined {
  if (process.platform === 'win32') return undefined;
  const name = serverWord(argv);
  if (name === undefined) return undefined;
  let dataDir: string;
  try {
    dataDir = resolveDataDir({ env, platform: process.platform, home: homedir() });
    if (!isKeptAlive(dataDir, name)) return undefined;
    // The call (its environment included) goes only to a socket no one else could have put there.
    if (!isOwnersOnly(dataDir, statSync) || !isOwnersOnly(daemonDir(dataDir), lstatSync, true)) return undefined;
  } catch {
    return undefined;
  }
  // Loaded only now: a call of a server not kept alive (the cold path) pays for no socket code.
  const { createConnection } = require('node:net') as typeof Net;
  return new Promise((resolve) => {
    const socket = createConnection(socketPath(dataDir));
    let sent = false;
    let finished = false;
    let received = '';
    let typing: (() => void) | undefined;
    const done = (code: number | undefined): void => {
      if (finished) return;
      finished = true;
      // With an exit code the process ends now (bin/wallet.js): the socket is only let go of,
      // and closes with it. Closing it first would wake the daemon (to read the end) while this
      // process still has to exit, ~0.4 ms of a warm call on two cores. A call made directly
      // (undefined) goes on: the socket is closed.
      if (code === undefined) socket.destroy();
      else socket.unref();
      typing?.();
      resolve(code);
    };
    socket.on('connect', () => {
      sent = true;
      const request = {
        v: PROTOCOL_VERSION,
        kind: 'run',
        version,
        build: BUILD_ID,
        argv,
        env: Object.fromEntries(Object.entries(env).filter((pair): pair is [string, string] => pair[1] !== undefined)),
        cwd: process.cwd(),
        tty: { stdin: isTerminal(0), stdout: isTerminal(1), stderr: isTerminal(2) },
        ...(isTerminal(1) ? { columns: process.stdout.columns } : {}),
      };
      socket.write(`${JSON.stringify(request)}\n`);
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      let end: number;
      while (!finished && (end = received.indexOf('\n')) !== -1) {
        const line = received.slice(0, end);
        received = received.slice(end + 1);
        let message: DaemonAnswer | RunRelay;
        try {
          message = JSON.parse(line) as DaemonAnswer | RunRelay;
        } catch {
          return done(lostDuringCall('its answer is not JSON'));
        }
        // A server's question, asked on this terminal: its text, and what is typed here.
        if (message.kind === 'write') writeAllTo(message.fd === 1 ? 1 : 2, String(message.text));
        else if (message.kind === 'read') typing ??= sendTyped(socket);
        else done(printAnswer(message, () => startDaemon(dataDir, walletBin, env)));
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (finished) return;
      if (sent) return done(lostDuringCall(error.message));
      // Nobody listens (no daemon yet, stopped when idle, or killed): start one for the next call.
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') startDaemon(dataDir, walletBin, env);
      done(undefined);
    });
    socket.on('close', () => {
      if (sent && !finished) done(lostDuringCall('the connection closed without an answer'));
    });
  });
}

/** The one `--server` value of a command line, when it may be a saved server's name. */
function serverWord(argv: readonly string[]): string | undefined {
  let value: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (word === '--') break;
    if (word === '--url' || word.startsWith('--url=')) return undefined;
    const given = word === '--server' ? argv[++index] : word.startsWith('--server=') ? word.slice(9) : undefined;
    if (given === undefined) continue;
    if (value !== undefined) return undefined;
    value = given;
  }
  return value !== undefined && SERVER_NAME.test(value) ? value : undefined;
}

/**
 * Whether servers.json marks `name` keep-alive. A glance, without its schema: the daemon reads
 * the file with it (and refuses a file others can write) before it runs anything.
 */
function isKeptAlive(dataDir: string, name: string): boolean {
  let text: string;
  try {
    text = readFileSync(serversFilePath(dataDir), 'utf8');
  } catch {
    return false;
  }
  const servers = (JSON.parse(text) as { mcpServers?: Record<string, { keep_alive?: unknown }> }).mcpServers;
  return servers !== undefined && Object.hasOwn(servers, name) && servers[name]?.keep_alive === true;
}

/**
 * Whether `dir` is a folder of this user that no one else can write (nor read: as the CLI wants
 * its data folder, src/shared/private-files.ts). In a folder others can write, anyone could have
 * put the socket, or swapped the daemon's folder for one of theirs, and would be sent the
 * caller's command line and environment and print what they like: such a call is made directly
 * (which closes the data folder, with a warning, or refuses another user's). `absentOk`: a
 * folder not made yet is fine (no socket in it; the daemon makes it owner-only). The data folder
 * may be a link (`stat`), as the CLI takes it; the daemon's own folder is never one (`lstat`).
 */
function isOwnersOnly(dir: string, stat: typeof statSync, absentOk = false): boolean {
  let info;
  try {
    info = stat(dir);
  } catch (error) {
    return absentOk && (error as NodeJS.ErrnoException).code === 'ENOENT';
  }
  return info.isDirectory() && info.uid === process.getuid?.() && (info.mode & 0o077) === 0;
}

/**
 * Writes a `done` answer's output and returns its exit code; anything else is left to the CLI.
 * A daemon of another version or build is ending (`restart`): one of this build is started now,
 * for the next call, while this one is made directly.
 */
function printAnswer(answer: DaemonAnswer, restart: () => void): number | undefined {
  if (answer.kind === 'fallback' && answer.restart === true) restart();
  if (answer.kind !== 'done' || typeof answer.exitCode !== 'number') return undefined;
  if (typeof answer.stdout === 'string') writeAllTo(1, answer.stdout);
  if (typeof answer.stderr === 'string') writeAllTo(2, answer.stderr);
  return answer.exitCode;
}

/**
 * Sends what is typed on stdin to the daemon, as it comes, for the server's question it asks
 * there (the terminal's own line editing and echo, as a direct call asks); its end too. Returns
 * how to stop, once the call is done (stdin would keep the process alive).
 */
function sendTyped(socket: Net.Socket): () => void {
  const stdin = process.stdin;
  const send = (message: { text: string } | { end: true }): void => {
    if (!socket.destroyed) socket.write(`${JSON.stringify({ v: PROTOCOL_VERSION, kind: 'input', ...message })}\n`);
  };
  stdin.setEncoding('utf8');
  stdin.on('data', (text: string) => send({ text }));
  stdin.on('end', () => send({ end: true }));
  stdin.on('error', () => send({ end: true }));
  return () => {
    stdin.pause();
    stdin.destroy();
  };
}

/**
 * The daemon went away after it was given the call: it may have made it, so it is not made
 * again here. Said as the CLI says a lost connection (src/cli/failure.ts), exit 3.
 */
function lostDuringCall(why: string): number {
  writeAllTo(
    2,
    `error: CONNECTION_FAILED: the kept-alive servers' daemon ended during the call (${why}); the call may or may not have been made.\n` +
      "hint: Check before calling again; 'wallet daemon status' shows the daemon (the next call starts a new one).\n",
  );
  return 3;
}

/**
 * Starts the daemon (`wallet daemon run`), detached from this process and its terminal, its
 * stdout and stderr appended to `<dataDir>/daemon/daemon.log` (owner-only). Two calls that
 * both start one are fine: the daemon takes a lock, and a second one exits.
 */
function startDaemon(dataDir: string, walletBin: string, env: NodeJS.ProcessEnv): void {
  try {
    mkdirSync(daemonDir(dataDir), { recursive: true, mode: 0o700 });
    const log = openSync(
      daemonLogPath(dataDir),
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      // Loaded only here: a warm call never spawns.
      const { spawn } = require('node:child_process') as typeof ChildProcess;
      spawn(process.execPath, [walletBin, 'daemon', 'run'], {
        detached: true,
        stdio: ['ignore', log, log],
        env: daemonEnvironment(env),
      }).unref();
    } finally {
      closeSync(log);
    }
  } catch {
    // No daemon this time: this call and the next are made directly, as without keep-alive.
  }
}

/**
 * What the daemon is started with of its first caller's environment: where the data folder is,
 * and what Node and the system need, no more. It lives on for other calls, and each call brings
 * its own environment (a server it spawns gets that one): a token, password or profile of the
 * caller that started it is not kept, nor given to a server started for someone else.
 */
function daemonEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const kept =
    /^(PATH|HOME|USER|LOGNAME|SHELL|TMPDIR|TZ|LANG|LC_[A-Z]+|XDG_[A-Z_]+|WALLET_HOME|WALLET_LOG_LEVEL|NODE_V8_COVERAGE|NODE_EXTRA_CA_CERTS|SSL_CERT_FILE|SSL_CERT_DIR)$/;
  return Object.fromEntries(Object.entries(env).filter(([name]) => kept.test(name)));
}

/** Writes all of `text` to a descriptor (a pipe, a file or a terminal) before returning. */
function writeAllTo(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let written = 0;
  while (written < bytes.length) {
    try {
      written += writeSync(fd, bytes, written);
    } catch (error) {
      // A terminal Node made non-blocking, full for now: try again.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
    }
  }
}

/** Whether a descriptor is a terminal, asked as bin/wallet.js asks it (loading `node:tty` only then). */
function isTerminal(fd: number): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return (require('node:tty') as typeof Tty).isatty(fd);
}

import type * as ChildProcess from 'node:child_process';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  read,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import type * as Net from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type * as Tty from 'node:tty';
import { resolveDataDir } from '../../shared/data-dir.js';
import { SERVER_NAME, serversFilePath } from '../servers/names.js';
import { daemonDir, daemonLogPath, slotsDir, slotsTakenDir, socketPath } from './paths.js';
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
  const restart = (): void => startDaemon(dataDir, walletBin, env);
  // Made once, before a slot is taken: one that cannot be made (its directory deleted: no cwd)
  // would fail in every slot taken, using them all up, and then in the socket's handler.
  let request: string;
  try {
    request = runRequest(argv, version, env);
  } catch {
    return undefined;
  }
  // A slot first: no `net` to load, the exchange made synchronously (slots.ts).
  const slotted = callThroughSlot(daemonDir(dataDir), request, restart);
  if (slotted !== undefined) return slotted;
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
      socket.write(request);
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      let end: number;
      while (!finished && (end = received.indexOf('\n')) !== -1) {
        const line = received.slice(0, end);
        received = received.slice(end + 1);
        const answered = answerLine(
          line,
          () => (typing ??= sendTyped((typed) => socket.destroyed || !socket.write(typed))),
          restart,
        );
        if (answered) done(answered.code);
      }
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (finished) return;
      if (sent) return done(lostDuringCall(error.message));
      // Nobody listens (no daemon yet, stopped when idle, or killed): start one for the next call.
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') restart();
      done(undefined);
    });
    socket.on('close', () => {
      if (sent && !finished) done(lostDuringCall('the connection closed without an answer'));
    });
  });
}

/** The `run` request line of a command line: what the daemon runs, where, and on which terminals. */
function runRequest(argv: readonly string[], version: string, env: NodeJS.ProcessEnv): string {
  const stdout = isTerminal(1);
  const request = {
    v: PROTOCOL_VERSION,
    kind: 'run',
    version,
    build: BUILD_ID,
    argv,
    env: Object.fromEntries(Object.entries(env).filter((pair): pair is [string, string] => pair[1] !== undefined)),
    cwd: process.cwd(),
    tty: { stdin: isTerminal(0), stdout, stderr: isTerminal(2) },
    ...(stdout ? { columns: process.stdout.columns } : {}),
  };
  return `${JSON.stringify(request)}\n`;
}

/**
 * The call made through one of the daemon's slots (slots.ts): taken by renaming it (one client
 * a slot), its `out` opened to read, its `in` to write (`O_NONBLOCK`: ENXIO when the daemon that
 * made it is gone, and the slot is removed), the request written, and the answer read with
 * blocking reads: no event loop, no `net`. Undefined when no slot is there to take or the daemon
 * is gone before the request was sent: the socket is tried. A server's question that reads this
 * terminal goes on asynchronously (stdin forwarded, the answer read by Node's thread pool).
 */
function callThroughSlot(
  folder: string,
  request: string,
  restart: () => void,
): Promise<number | undefined> | undefined {
  let names: string[];
  try {
    names = readdirSync(slotsDir(folder));
  } catch {
    return undefined;
  }
  for (const name of names) {
    const slot = join(slotsTakenDir(folder), name);
    try {
      renameSync(join(slotsDir(folder), name), slot);
    } catch {
      // Another client took it first.
      continue;
    }
    let inFd: number | undefined;
    let outFd: number | undefined;
    try {
      inFd = openSync(join(slot, 'in'), constants.O_WRONLY | constants.O_NONBLOCK);
      outFd = openReader(join(slot, 'out'));
      writeFully(inFd, request);
    } catch {
      // A slot of a daemon that is gone (ENXIO), or one that ended meanwhile: nothing was run.
      if (inFd !== undefined) closeSync(inFd);
      if (outFd !== undefined) closeSync(outFd);
      rmSync(slot, { recursive: true, force: true });
      continue;
    }
    return readAnswers(inFd, outFd, restart);
  }
  return undefined;
}

/**
 * Opens a FIFO to read, with blocking reads, without waiting for a writer: a daemon killed just
 * after the client opened `in` left `out` with none, ever, and a plain open would wait forever.
 * Held read-write meanwhile (as the daemon holds its ends), the open returns at once; let go
 * after, so that a daemon gone is seen as the end of `out`.
 */
function openReader(path: string): number {
  const holder = openSync(path, constants.O_RDWR | constants.O_NONBLOCK);
  try {
    return openSync(path, constants.O_RDONLY);
  } finally {
    closeSync(holder);
  }
}

/** Writes all of `text` to a descriptor that may be non-blocking (a slot's pipe, a terminal): a full one is waited for. */
function writeFully(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let written = 0;
  while (written < bytes.length) {
    try {
      written += writeSync(fd, bytes, written);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      pause(1);
    }
  }
}

/** Sleeps `ms` milliseconds, synchronously (a pipe full or empty for now). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Reads a slot's answer lines: a run's output relayed and its answer, synchronously; once the
 * daemon asks for what is typed here (`read`), asynchronously, stdin sent as it comes.
 */
function readAnswers(inFd: number, outFd: number, restart: () => void): Promise<number | undefined> {
  const buffer = Buffer.alloc(65_536);
  // Bytes of the line not yet ended (a newline byte is never part of another UTF-8 character).
  let partial: Buffer[] = [];
  let typing: (() => void) | undefined;
  const handle = (line: string): { code: number | undefined } | undefined =>
    answerLine(
      line,
      () =>
        (typing ??= sendTyped((text) => {
          try {
            writeFully(inFd, text);
          } catch {
            // The daemon is gone: its answer (or the end of `out`) says so.
          }
        })),
      restart,
    );
  // Takes what was read; the result once a line is the answer.
  const take = (count: number): { code: number | undefined } | undefined => {
    let chunk = buffer.subarray(0, count);
    let end: number;
    while ((end = chunk.indexOf(10)) !== -1) {
      const line = Buffer.concat([...partial, chunk.subarray(0, end)]).toString('utf8');
      partial = [];
      chunk = chunk.subarray(end + 1);
      const result = handle(line);
      if (result) return result;
    }
    // Copied: the buffer is read into again.
    if (chunk.length > 0) partial.push(Buffer.from(chunk));
    return undefined;
  };
  const finish = (result: { code: number | undefined }): number | undefined => {
    typing?.();
    closeSync(inFd);
    closeSync(outFd);
    return result.code;
  };
  const lost = (): { code: number } => ({ code: lostDuringCall('the connection closed without an answer') });
  while (typing === undefined) {
    let count: number;
    try {
      // `out` is blocking (openReader): this waits for the daemon.
      count = readSync(outFd, buffer, 0, buffer.length, null);
    } catch {
      return Promise.resolve(finish(lost()));
    }
    if (count === 0) return Promise.resolve(finish(lost()));
    const result = take(count);
    if (result) return Promise.resolve(finish(result));
  }
  return new Promise((resolve) => {
    const next = (): void => {
      read(outFd, buffer, 0, buffer.length, null, (error, count) => {
        if (error || count === 0) return resolve(finish(lost()));
        const result = take(count);
        if (result) resolve(finish(result));
        else next();
      });
    };
    next();
  });
}

/**
 * One line the daemon sent, over the socket or a slot: a run's output relayed (`write`), a request
 * for what is typed here (`read`: `startTyping`), or the answer, whose exit code it returns
 * (undefined: the call is the CLI's to make); undefined while the call goes on.
 */
function answerLine(
  line: string,
  startTyping: () => void,
  restart: () => void,
): { code: number | undefined } | undefined {
  let message: DaemonAnswer | RunRelay;
  try {
    message = JSON.parse(line) as DaemonAnswer | RunRelay;
  } catch {
    return { code: lostDuringCall('its answer is not JSON') };
  }
  // A server's question, asked on this terminal: its text, and what is typed here.
  if (message.kind === 'write') writeAllTo(message.fd === 1 ? 1 : 2, String(message.text));
  else if (message.kind === 'read') startTyping();
  else return { code: printAnswer(message, restart) };
  return undefined;
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
function sendTyped(write: (line: string) => unknown): () => void {
  const stdin = process.stdin;
  const send = (message: { text: string } | { end: true }): void => {
    write(`${JSON.stringify({ v: PROTOCOL_VERSION, kind: 'input', ...message })}\n`);
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

/** Writes all of `text` to a descriptor (a pipe, a file or a terminal) before returning; a reader gone ends it quietly. */
function writeAllTo(fd: number, text: string): void {
  try {
    // A terminal Node made non-blocking, full for now, is waited for as a full pipe is.
    writeFully(fd, text);
  } catch {
    // The reader went (`wallet … | head`): nothing more to say to it.
  }
}

/** Whether a descriptor is a terminal, asked as bin/wallet.js asks it (loading `node:tty` only then). */
function isTerminal(fd: number): boolean {
  try {
    const info = fstatSync(fd);
    if (!info.isCharacterDevice()) return false;
    // /dev/null (stdin of a script, a cron job or an agent's tool runner): not a terminal, known
    // without `node:tty`, which loads `net` (~2 ms of a warm call).
    const nothing = statSync('/dev/null');
    if (info.rdev === nothing.rdev && info.ino === nothing.ino && info.dev === nothing.dev) return false;
  } catch {
    return false;
  }
  return (require('node:tty') as typeof Tty).isatty(fd);
}

import { createHash } from 'node:crypto';
import { closeSync, fstatSync, ftruncateSync, writeSync } from 'node:fs';
import type { McpSession, QuestionAnswerer } from '../../mcp/session.js';
import { openPrivateAppend } from '../../shared/private-files.js';
import type { ToolList, WarmSessions } from '../connection.js';
import type { Target } from '../target.js';
import { serverLogPath } from './paths.js';
import type { WarmServerStatus } from './wire.js';

/** A server's log is started afresh when the daemon opens it past this size. */
const LOG_LIMIT_BYTES = 1024 * 1024;

type RemoteTarget = Exclude<Target, { kind: 'built-in' }>;

type Warm = {
  name: string;
  transport: 'stdio' | 'http';
  opening: Promise<McpSession>;
  session?: McpSession | undefined;
  /** The tool list asked of this session, until it announces a change. */
  list?: ToolList | undefined;
  log: ServerLog;
  /** Who answers the server's questions now: the runs using a session that declares elicitation. */
  askers: Set<QuestionAnswerer>;
  calls: number;
  since: Date;
  lastUsed: Date;
};

/**
 * The daemon's open sessions, one for each server and resolved connection (the command and
 * the caller's environment under the server's own, or URL and headers, once `${VAR}`s are
 * expanded: another environment is another session). Keyed by a hash, so that no expanded value is kept as a key. Each server's stderr
 * and the SDK's notes are appended to `<dataDir>/daemon/<name>.log` (owner-only).
 */
export class SessionPool {
  private readonly sessions = new Map<string, Warm>();
  /** How many runs are using each session now: one dropped under them is closed after the last. */
  private readonly users = new Map<McpSession, number>();
  /** Sessions dropped (no new run gets them) that runs still use: closed once those are done. */
  private readonly retired = new Set<McpSession>();

  constructor(private readonly dataDir: string) {}

  /**
   * The sessions one run borrows: which it used, so that a run that lost its server drops them,
   * and `answered` counts a call for each (a run handed back to the client counts none);
   * `release`, when the run is over, lets go of them (a dropped one is closed after its last run).
   */
  forRun(): WarmSessions & { used: () => McpSession[]; answered: () => void; release: () => Promise<void> } {
    const used = new Set<McpSession>();
    const asking: { warm: Warm; questions: QuestionAnswerer }[] = [];
    return {
      session: async (target, connect, questions) => {
        const warm = this.warm(target, connect, questions);
        if (questions) {
          warm.askers.add(questions);
          asking.push({ warm, questions });
        }
        const session = await warm.opening;
        if (!used.has(session)) {
          used.add(session);
          this.users.set(session, (this.users.get(session) ?? 0) + 1);
        }
        return session;
      },
      release: async () => {
        for (const { warm, questions } of asking.splice(0)) warm.askers.delete(questions);
        for (const session of used) {
          const left = (this.users.get(session) ?? 1) - 1;
          if (left > 0) {
            this.users.set(session, left);
            continue;
          }
          this.users.delete(session);
          if (this.retired.delete(session)) await session.close().catch(() => undefined);
        }
        used.clear();
      },
      discard: (session) => this.discard(session),
      listOf: (session) => this.find(session)?.list,
      keepList: (session, list) => {
        const warm = this.find(session);
        if (warm) warm.list = list;
      },
      used: () => [...used],
      answered: () => {
        for (const session of used) {
          const warm = this.find(session);
          if (warm) warm.calls++;
        }
      },
    };
  }

  /**
   * The session of `target` that declares the elicitation `questions` can answer (none without
   * them): opened now if there is none. Its server's questions go to the one run using it: a
   * run that can answer them gets a session no other such run is using (a second caller on a
   * terminal while the first is still in its call gets a session of its own), since the server's
   * question does not say whose call asks. One that comes with no run using it is cancelled.
   */
  private warm(
    target: RemoteTarget,
    connect: Parameters<WarmSessions['session']>[1],
    questions: QuestionAnswerer | undefined,
  ): Warm {
    const asks = questions ? `${questions.form ? 'form' : ''}${questions.url ? '+url' : ''}` : '';
    const base = `${keyOf(target)}${asks === '' ? '' : ` asks ${asks}`}`;
    let key = base;
    const taken = (askers: Set<QuestionAnswerer> | undefined): boolean =>
      questions !== undefined && askers !== undefined && askers.size > 0 && !askers.has(questions);
    for (let other = 2; taken(this.sessions.get(key)?.askers); other++) key = `${base} #${other}`;
    let warm = this.sessions.get(key);
    if (!warm) {
      const name = target.spec.value;
      const log = new ServerLog(serverLogPath(this.dataDir, name));
      const note = (text: string): void => log.write(text);
      note(`${new Date().toISOString()} connecting (${target.kind}${asks === '' ? '' : `, elicitation: ${asks}`})`);
      const now = new Date();
      const routed: QuestionAnswerer | undefined = questions && {
        form: questions.form,
        url: questions.url,
        answer: async (question) => {
          const askers = [...created.askers];
          if (askers.length === 1 && askers[0]) return askers[0].answer(question);
          note(
            `${new Date().toISOString()} a question with ${askers.length === 0 ? 'no call' : 'several calls'} to ask it of: cancelled`,
          );
          return { action: 'cancel' };
        },
      };
      const created: Warm = {
        name,
        transport: target.kind,
        opening: connect({
          onServerStderr: note,
          onLibraryMessage: (text) => note(`sdk: ${text}`),
          onToolListChanged: () => {
            created.list = undefined;
          },
          questions: routed,
        }),
        log,
        askers: new Set(),
        calls: 0,
        since: now,
        lastUsed: now,
      };
      const opening = created.opening;
      warm = created;
      this.sessions.set(key, created);
      opening.then(
        (session) => {
          created.session = session;
        },
        (error: unknown) => {
          note(
            `${new Date().toISOString()} could not connect: ${error instanceof Error ? error.message : String(error)}`,
          );
          if (this.sessions.get(key) === created) this.forget(key);
        },
      );
    }
    warm.lastUsed = new Date();
    return warm;
  }

  private find(session: McpSession): Warm | undefined {
    return [...this.sessions.values()].find((warm) => warm.session === session);
  }

  /**
   * Drops a session that failed (its server died, or stopped answering one run): the next call
   * opens another. Other runs may be in a call on it (one run's --timeout is not theirs): it is
   * closed once the last of them is done, not under them.
   */
  async discard(session: McpSession): Promise<void> {
    for (const [key, warm] of this.sessions) {
      if (warm.session !== session) continue;
      warm.log.write(`${new Date().toISOString()} session dropped after a failure`);
      this.forget(key);
      if ((this.users.get(session) ?? 0) > 0) this.retired.add(session);
      else await session.close().catch(() => undefined);
    }
  }

  /** Every open session's server, for `wallet daemon status`. */
  status(): WarmServerStatus[] {
    return [...this.sessions.values()]
      .filter((warm) => warm.session !== undefined)
      .map((warm) => ({
        name: warm.name,
        transport: warm.transport,
        calls: warm.calls,
        since: warm.since.toISOString(),
        lastUsed: warm.lastUsed.toISOString(),
        log: serverLogPath(this.dataDir, warm.name),
      }));
  }

  /** Ends every session (a stdio server gets its stdin closed, then a signal if it lingers). */
  async closeAll(): Promise<void> {
    const retired = [...this.retired];
    this.retired.clear();
    await Promise.all(retired.map((session) => session.close().catch(() => undefined)));
    const all = [...this.sessions.keys()];
    await Promise.all(
      all.map(async (key) => {
        const warm = this.sessions.get(key);
        this.forget(key);
        await (await warm?.opening.catch(() => undefined))?.close().catch(() => undefined);
      }),
    );
  }

  private forget(key: string): void {
    const warm = this.sessions.get(key);
    this.sessions.delete(key);
    warm?.log.close();
  }
}

/**
 * A shell's own bookkeeping, which changes as its user moves around (`cd`) without making the
 * server another one: left out of a session's key (the server runs where it was started anyway).
 */
const SHELL_BOOKKEEPING = new Set(['PWD', 'OLDPWD', '_', 'SHLVL']);

/**
 * What makes two runs' connections the same one: the server and how it is resolved (a stdio
 * server's environment is its caller's, src/cli/main.ts: another environment, another session).
 */
function keyOf(target: RemoteTarget): string {
  const how =
    target.kind === 'stdio'
      ? {
          kind: 'stdio',
          spec: target.spec,
          command: {
            ...target.command,
            env: Object.entries(target.command.env ?? {})
              .filter(([name]) => !SHELL_BOOKKEEPING.has(name))
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
          },
        }
      : { kind: 'http', spec: target.spec, url: target.address.url.href, headers: target.address.headers ?? {} };
  return createHash('sha256').update(JSON.stringify(how)).digest('hex');
}

/**
 * A server's log, appended to line by line. Closed once its session is forgotten: a line the
 * server writes after that is dropped (never written to a descriptor number reused since).
 */
class ServerLog {
  private fd: number | undefined;

  constructor(path: string) {
    this.fd = openPrivateAppend(path);
    if (fstatSync(this.fd).size > LOG_LIMIT_BYTES) ftruncateSync(this.fd, 0);
  }

  write(text: string): void {
    if (this.fd === undefined) return;
    try {
      writeSync(this.fd, `${text}\n`);
    } catch {
      // A log that cannot be written loses a line; the call goes on.
    }
  }

  close(): void {
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
  }
}

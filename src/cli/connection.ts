import { isDeepStrictEqual } from 'node:util';
import {
  ClientRefusal,
  RemoteProtocolError,
  type EraVerdict,
  type ListedTool,
  type McpSession,
  type QuestionAnswerer,
  type SessionEvents,
} from '../mcp/session.js';
import type { StdioServerCommand } from '../mcp/client.js';
import type { LineSink, ServerProcess } from '../mcp/stdio-child.js';
import { isJsonSchema, PER_KEYWORD, UNIT_KEYWORD } from '../shared/json-schema.js';
import { definitionsDigestOf, describeAllArgumentsOf, FULL_DESCRIPTION_META_KEY } from '../shared/protocol-meta.js';
import type { WalletServerSetup } from '../mcp/setup.js';
import { readBuiltInTools } from './builtin-tools.js';
import type { Target } from './target.js';
import type { CachedToolList, ServerSpec, ToolListCache } from './tool-cache.js';

export const DEFAULT_TIMEOUT_MS = 60_000;

/** A tool list and where it came from. */
export type ToolList = {
  server: { name: string; version: string };
  tools: ListedTool[];
  /** Set when the list was read from the cache instead of the server. */
  cached?: CachedToolList | undefined;
};

/**
 * The CLI's way to its server: the tool list (from the cache when allowed, so `--help` and
 * completion work with the server gone; for the built-in server, the list the build recorded)
 * and a session opened only when something must be sent. The MCP SDK and the server are loaded
 * only then.
 */
export class Connection {
  private session: McpSession | undefined;
  /** The era the session was opened in from the cache, rather than negotiated. */
  private priorEra: EraVerdict | undefined;
  private cacheStore: ToolListCache | undefined;
  private cachedList: CachedToolList | undefined;
  private pending: Promise<unknown> = Promise.resolve();
  /** The session is the daemon's (`warm`): it outlives this run, which never closes it. */
  private pooled = false;

  constructor(
    readonly target: Target,
    readonly dataDir: string,
    private readonly timeoutMs: number | undefined,
    private readonly builtIn: Omit<WalletServerSetup, 'localOnly' | 'readOnly' | 'caller'> = {},
    /** Who answers another server's questions (elicitation); none: the client declares none. */
    private readonly questions?: QuestionAnswerer,
    /** Where the MCP SDK's own notes go (--debug: stderr); by default nowhere. */
    private readonly libraryNotes?: (text: string) => void,
    /** The server, spawned ahead by {@link startServerAhead}: the session speaks over it. */
    private early?: ServerAhead,
    /** The kept-alive servers' daemon's open sessions (src/cli/daemon/): this run borrows one. */
    private readonly warm?: WarmSessions,
    /** Where a wait on the server's exit is said (stderr), see {@link SessionEvents.onServerWait}. */
    private readonly notices?: (line: string) => void,
  ) {}

  private async cache(): Promise<ToolListCache> {
    if (!this.cacheStore) {
      const { ToolListCache } = await import('./tool-cache.js');
      this.cacheStore = new ToolListCache(this.dataDir);
    }
    return this.cacheStore;
  }

  get isBuiltIn(): boolean {
    return this.target.kind === 'built-in';
  }

  /** Another server run as this CLI's child (`--server <command>`): it ends when the CLI does. */
  get isStdio(): boolean {
    return this.target.kind === 'stdio';
  }

  /**
   * The tools. `cache: 'allow'` answers from another server's cached list when there is one
   * (and the server has not announced a change), and for the built-in server from the list the
   * build recorded; `'refresh'` asks the server for its list (a kept-alive session: once, until
   * it announces a change), and completes a lean one
   * with the cached answer of its `tool_describe` when that still holds (see
   * {@link withFullDefinitions}); `'reload'` asks for both again (`wallet tools --refresh`).
   */
  async tools(cache: 'allow' | 'refresh' | 'reload'): Promise<ToolList> {
    const target = this.target;
    if (cache === 'allow') {
      if (target.kind === 'built-in') {
        const recorded = await readBuiltInTools();
        if (recorded) return recorded;
      } else {
        const cached = await this.readCache();
        if (cached && !cached.stale) return { server: cached.server, tools: cached.tools, cached };
      }
    }
    let session = await this.open();
    // A kept-alive session's own list, asked of it before: the server's own now, unless it
    // announced a change since (or a call was refused as malformed), which forgets it.
    const kept = cache === 'refresh' && this.pooled ? this.warm?.listOf(session) : undefined;
    if (kept) return kept;
    const timeoutMs = this.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    let listed: ListedTool[];
    try {
      listed = await session.listTools({ timeoutMs });
    } catch (error) {
      // The first request of a session opened in a remembered 2026-era verdict fails when the
      // server no longer speaks that era: forget it, and when the server answered (it is there,
      // only in another era) connect again, negotiating.
      if (this.priorEra?.kind !== 'modern') throw error;
      await this.forgetEra();
      if (!(error instanceof RemoteProtocolError || error instanceof ClientRefusal)) throw error;
      await this.dropSession();
      session = await this.open();
      listed = await session.listTools({ timeoutMs });
    }
    if (target.kind === 'built-in') return { server: session.server, tools: listed };
    // A lean list is completed by one call of the server's `tool_describe` (all its tools'
    // descriptions and schemas). The list the cache completed from an identical one (the same
    // server name and version, the same tools, the same digest of their definitions) lends its
    // completions instead, unless the server announced a change since or a reload was asked.
    const { hashOfListed } = await import('./tool-cache.js');
    const listedHash = hashOfListed(session.server, listed);
    const cached = await this.readCache();
    const completed =
      cache !== 'reload' && cached && !cached.stale && cached.listedHash === listedHash ? cached.tools : undefined;
    const { tools, whole } = await withFullDefinitions(session, listed, timeoutMs, completed);
    if (this.pooled) this.warm?.keepList(session, { server: session.server, tools });
    // The cache only saves a trip: failing to write it must not fail the command. A list left
    // incomplete (tool_describe failed) is kept without its hash, so the next run asks again.
    await (
      await this.cache()
    )
      .write(target.spec, session.server, tools, session.era, whole ? listedHash : undefined, { previous: cached })
      .catch(() => undefined);
    return { server: session.server, tools };
  }

  /** Another server's cached list, read once per run. */
  private async readCache(): Promise<CachedToolList | undefined> {
    if (this.target.kind === 'built-in') return undefined;
    this.cachedList ??= await (await this.cache()).read(this.target.spec);
    return this.cachedList;
  }

  private sessionEvents(): SessionEvents {
    const target = this.target;
    return {
      questions: this.questions,
      onLibraryMessage: this.libraryNotes ?? (() => undefined),
      onServerStderr: serverStderrNotes(this.libraryNotes),
      onServerWait: this.notices,
      onToolListChanged: () => {
        if (target.kind !== 'built-in') {
          this.pending = this.pending
            .then(async () => (await this.cache()).markStale(target.spec))
            .catch(() => undefined);
        }
      },
    };
  }

  /** The session, connected on first use. */
  async open(): Promise<McpSession> {
    if (this.session) return this.session;
    const target = this.target;
    const events = this.sessionEvents();
    if (target.kind === 'built-in') {
      const { openInProcessSession } = await import('../mcp/in-process.js');
      this.session = await openInProcessSession(this.builtIn);
      return this.session;
    }
    if (this.warm) {
      // The daemon's session of this server, opened by the first run that needed it, which
      // declares the elicitation this run can answer (a run that can answer none gets a session
      // that declares none, as a direct call): the daemon hands its server's questions to the
      // run using it (`logged.questions`). Its stderr and notes go to the server's log.
      this.session = await this.warm.session(
        target,
        (logged) =>
          this.connect(target, {
            ...events,
            ...logged,
            // The daemon closes it long after this run's stderr is gone: its log says enough.
            onServerWait: undefined,
            questions: logged.questions,
            onToolListChanged: () => {
              events.onToolListChanged?.();
              logged.onToolListChanged();
            },
          }),
        this.questions,
      );
      this.pooled = true;
      return this.session;
    }
    this.session = await this.connect(target, events);
    return this.session;
  }

  /** A new session of another server (see {@link open}). */
  private async connect(target: Exclude<Target, { kind: 'built-in' }>, events: SessionEvents): Promise<McpSession> {
    const timeout = this.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // The era this server spoke last time: connecting in it spawns no probe. A server spawned
    // ahead is spoken to in the era it was spawned for, once (a retry spawns afresh).
    const early = this.early;
    this.early = undefined;
    if (early) this.priorEra = early.era;
    else {
      const cached = await this.readCache();
      const { rememberedEra } = await import('./tool-cache.js');
      this.priorEra = cached && rememberedEra(cached);
    }
    const { openHttpSession, openStdioSession } = await import('../mcp/client.js');
    const connect = (prior: EraVerdict | undefined, running?: ServerProcess) =>
      target.kind === 'stdio'
        ? openStdioSession(target.command, timeout, events, prior, running)
        : openHttpSession(target.address, timeout, events, prior);
    try {
      try {
        return await connect(this.priorEra, early?.process);
      } catch (error) {
        // Adopting a remembered `server/discover` result needs no round trip; it fails only when
        // the record is of no use (no version in common): negotiate instead.
        if (this.priorEra?.kind !== 'modern') throw error;
        await this.forgetEra();
        return await connect(undefined);
      }
    } catch (error) {
      // A 401 taken for an OAuth login may be a server that takes a bearer token: say which.
      if (target.kind !== 'http') throw error;
      const { explainUnauthorized } = await import('./unauthorized.js');
      throw await explainUnauthorized(error, target.address);
    }
  }

  /** Ends this run's session (the daemon's: it is dropped from the daemon, and ended there). */
  private async dropSession(): Promise<void> {
    const session = this.session;
    this.session = undefined;
    if (!session) return;
    if (this.pooled) await this.warm?.discard(session);
    else await session.close().catch(() => undefined);
    this.pooled = false;
  }

  /** The remembered era failed: connect negotiating from now on (this run and the next). */
  private async forgetEra(): Promise<void> {
    this.priorEra = undefined;
    this.cachedList = undefined;
    if (this.target.kind !== 'built-in') await (await this.cache()).forgetEra(this.target.spec).catch(() => undefined);
  }

  /** After a call failed in a way that suggests the cached list is out of date. */
  async forgetCachedList(): Promise<void> {
    if (this.pooled && this.session) this.warm?.keepList(this.session, undefined);
    if (this.target.kind !== 'built-in') await (await this.cache()).markStale(this.target.spec).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.pending.catch(() => undefined);
    this.early?.process.stop();
    this.early = undefined;
    if (!this.pooled) await this.session?.close();
  }
}

/**
 * The sessions the kept-alive servers' daemon keeps open (src/cli/daemon/pool.ts), one a server:
 * `session` gives the open one, or opens it with `connect` (given where the server's stderr and
 * the SDK's notes go: its log); `discard` ends one that failed.
 */
export type WarmSessions = {
  /** `questions`: who answers this run's server's questions; the session is one that declares as much. */
  session(
    target: Exclude<Target, { kind: 'built-in' }>,
    connect: (logged: WarmSessionEvents) => Promise<McpSession>,
    questions?: QuestionAnswerer,
  ): Promise<McpSession>;
  discard(session: McpSession): Promise<void>;
  /** The tool list a run got from this session (completed), kept until the server announces a change. */
  listOf(session: McpSession): ToolList | undefined;
  keepList(session: McpSession, list: ToolList | undefined): void;
};

/** Where a kept-alive session's stderr and notes go, and who hears that its tool list changed. */
type WarmSessionEvents = Required<Pick<SessionEvents, 'onServerStderr' | 'onLibraryMessage'>> & {
  onToolListChanged: () => void;
  /** Who answers the session's questions: the run using it (none: it declares no elicitation). */
  questions: QuestionAnswerer | undefined;
};

/** A stdio server spawned before its session, and the era it is spoken to in. */
export type ServerAhead = { process: ServerProcess; era: EraVerdict };

/**
 * A stdio server `bin/wallet.js` spawned before the CLI's bundle loaded (`src/startup/ahead.ts`), for the
 * server and command it resolved; its stderr lines are held until `relayStderr` says where they go.
 */
export type SpawnedAhead = {
  process: ServerProcess;
  spec: ServerSpec;
  command: StdioServerCommand;
  relayStderr: (sink: LineSink) => void;
};

/**
 * For a run that will call a tool of a stdio server it has spoken to before (its era is
 * remembered in the cache): spawns the server now, before the CLI loads the MCP SDK and reads
 * the cached list, so that the two start side by side. A server met for the first time is not
 * (the SDK negotiates its era on a sibling it spawns itself), nor on Windows (see stdio-child.ts).
 * `spawned`: the one `bin/wallet.js` spawned even sooner on a glance at the cache, adopted when
 * it is this run's server and command (both resolve them with the same code) and the cache, read
 * with its schema, remembers the era; else ended.
 */
export async function startServerAhead(
  target: Target,
  dataDir: string,
  libraryNotes: ((text: string) => void) | undefined,
  spawned?: SpawnedAhead,
): Promise<ServerAhead | undefined> {
  if (target.kind !== 'stdio' || process.platform === 'win32') {
    spawned?.process.stop();
    return undefined;
  }
  const { ToolListCache } = await import('./tool-cache.js');
  const era = await new ToolListCache(dataDir).readEra(target.spec);
  if (spawned) {
    if (era && isDeepStrictEqual([spawned.spec, spawned.command], [target.spec, target.command])) {
      libraryNotes?.(`speaking to the server spawned before the CLI loaded (pid ${spawned.process.child?.pid})`);
      spawned.relayStderr(serverStderrNotes(libraryNotes));
      return { process: spawned.process, era };
    }
    libraryNotes?.(
      'ended the server spawned before the CLI loaded: another command than this run resolved, or no era remembered',
    );
    spawned.process.stop();
  }
  if (!era) return undefined;
  const { spawnServer } = await import('../mcp/stdio-child.js');
  const running = spawnServer(target.command, serverStderrNotes(libraryNotes));
  libraryNotes?.(`spawned the server ahead of its session (pid ${running.child?.pid})`);
  return { process: running, era };
}

/** A server's stderr (banners, npm warnings) is shown under --debug only; its last lines still come with a failure. */
function serverStderrNotes(libraryNotes: ((text: string) => void) | undefined): ((line: string) => void) | undefined {
  return libraryNotes && ((line: string) => libraryNotes(`server: ${line}`));
}

/** What a lean list's entry lacks, from `tool_describe`'s answer (or a list completed with one). */
type Completion = { description?: unknown; input_schema?: unknown; output_schema?: unknown };

/**
 * A lean tool list (`wallet serve`'s default) made whole: when a listed tool declares that it
 * describes every tool (`DESCRIBE_ALL_META_KEY`), it is called once and each tool gets its full
 * description, output schema and its arguments' declared units back, so help, rendering and typed
 * coin amounts are as good as with `--profile full`; the cache then keeps them with the list.
 * `kept`: a list the cache completed from a list identical to this one; when the describing tool
 * carries the digest of its server's definitions (`DEFINITIONS_DIGEST_META_KEY`), so that an
 * identical list means identical answers, its completions are taken instead of calling again.
 * Everything else (schemas, secret fields, hints) is always this list's own. `whole`: every tool
 * got its completion; a failed, odd or partial answer leaves the list as it was (or partly so).
 */
async function withFullDefinitions(
  session: McpSession,
  tools: ListedTool[],
  timeoutMs: number,
  kept?: readonly ListedTool[],
): Promise<{ tools: ListedTool[]; whole: boolean }> {
  const describer = tools.find((tool) => describeAllArgumentsOf(tool) !== undefined);
  const args = describer && describeAllArgumentsOf(describer);
  if (!describer || !args) return { tools, whole: true };
  const byName =
    kept && definitionsDigestOf(describer) !== undefined
      ? completionsKept(kept)
      : await describedByName(session, describer.name, args, timeoutMs);
  if (!byName) return { tools, whole: false };
  const completed = tools.map((tool) => {
    const full = byName.get(tool.name);
    if (!full) return tool;
    return {
      ...tool,
      inputSchema: withDeclaredUnits(tool.inputSchema, full.input_schema),
      ...(tool.outputSchema === undefined && isJsonSchema(full.output_schema)
        ? { outputSchema: full.output_schema }
        : {}),
      _meta: {
        ...(typeof full.description === 'string' ? { [FULL_DESCRIPTION_META_KEY]: full.description } : {}),
        ...tool._meta,
      },
    };
  });
  return { tools: completed, whole: tools.every((tool) => byName.has(tool.name)) };
}

/** `tool_describe`'s answer for every tool, by name; undefined when it failed or is not one. */
async function describedByName(
  session: McpSession,
  describer: string,
  args: Record<string, unknown>,
  timeoutMs: number,
): Promise<Map<string, Completion> | undefined> {
  const result = await session.callTool(describer, args, { timeoutMs }).catch(() => undefined);
  const described = (result?.isError === false ? result.structuredContent : undefined) as
    { tools?: unknown } | undefined;
  if (!Array.isArray(described?.tools)) return undefined;
  const byName = new Map<string, Completion>();
  for (const entry of described.tools as unknown[]) {
    if (isJsonSchema(entry) && typeof entry['name'] === 'string') byName.set(entry['name'], entry);
  }
  return byName;
}

/** The completions a completed list holds: full description, input schema (with units), output schema. */
function completionsKept(kept: readonly ListedTool[]): Map<string, Completion> {
  return new Map(
    kept.map((tool) => [
      tool.name,
      {
        description: tool._meta?.[FULL_DESCRIPTION_META_KEY],
        input_schema: tool.inputSchema,
        output_schema: tool.outputSchema,
      },
    ]),
  );
}

/** The lean input schema with the unit declarations (`x-unit`, `x-per`) of the full one's arguments. */
function withDeclaredUnits(lean: ListedTool['inputSchema'], full: unknown): ListedTool['inputSchema'] {
  const fullProperties = isJsonSchema(full) && isJsonSchema(full['properties']) ? full['properties'] : undefined;
  const leanProperties = lean['properties'];
  if (!fullProperties || !isJsonSchema(leanProperties)) return lean;
  const properties = Object.fromEntries(
    Object.entries(leanProperties).map(([name, property]) => {
      const declared = fullProperties[name];
      if (!isJsonSchema(property) || !isJsonSchema(declared)) return [name, property];
      const units = Object.entries(declared).filter(([key]) => key === UNIT_KEYWORD || key === PER_KEYWORD);
      return [name, units.length > 0 ? { ...property, ...Object.fromEntries(units) } : property];
    }),
  );
  return { ...lean, properties };
}

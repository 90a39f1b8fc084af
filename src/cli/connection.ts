import {
  openHttpSession,
  openInProcessSession,
  openStdioSession,
  type ListedTool,
  type McpSession,
} from '../mcp/client.js';
import type { WalletServerSetup } from '../mcp/setup.js';
import type { Target } from './target.js';
import { ToolListCache, type CachedToolList } from './tool-cache.js';

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
 * completion work with the server gone) and a session opened only when something must be sent.
 */
export class Connection {
  private session: McpSession | undefined;
  private readonly cache: ToolListCache;
  private pending: Promise<unknown> = Promise.resolve();

  constructor(
    readonly target: Target,
    dataDir: string,
    private readonly timeoutMs: number | undefined,
    private readonly builtIn: Omit<WalletServerSetup, 'localOnly' | 'readOnly'> = {},
  ) {
    this.cache = new ToolListCache(dataDir);
  }

  get isBuiltIn(): boolean {
    return this.target.kind === 'built-in';
  }

  /**
   * The tools. `cache: 'allow'` answers from another server's cached list when there is one
   * (and the server has not announced a change); `'refresh'` always asks the server.
   */
  async tools(cache: 'allow' | 'refresh'): Promise<ToolList> {
    const target = this.target;
    if (target.kind !== 'built-in' && cache === 'allow') {
      const cached = await this.cache.read(target.spec);
      if (cached && !cached.stale) return { server: cached.server, tools: cached.tools, cached };
    }
    const session = await this.open();
    const tools = await session.listTools({ timeoutMs: this.timeoutMs ?? DEFAULT_TIMEOUT_MS });
    // The cache only saves a trip: failing to write it must not fail the command.
    if (target.kind !== 'built-in') await this.cache.write(target.spec, session.server, tools).catch(() => undefined);
    return { server: session.server, tools };
  }

  /** The session, connected on first use. */
  async open(): Promise<McpSession> {
    if (this.session) return this.session;
    const target = this.target;
    const timeout = this.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const events = {
      onToolListChanged: () => {
        if (target.kind !== 'built-in') {
          this.pending = this.pending.then(() => this.cache.markStale(target.spec)).catch(() => undefined);
        }
      },
    };
    switch (target.kind) {
      case 'built-in':
        this.session = await openInProcessSession(this.builtIn);
        break;
      case 'stdio':
        this.session = await openStdioSession(target.command, timeout, events);
        break;
      case 'http':
        this.session = await openHttpSession(target.address, timeout, events);
        break;
    }
    return this.session;
  }

  /** After a call failed in a way that suggests the cached list is out of date. */
  async forgetCachedList(): Promise<void> {
    if (this.target.kind !== 'built-in') await this.cache.markStale(this.target.spec).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.pending.catch(() => undefined);
    await this.session?.close();
  }
}

import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import type { ListedTool } from '../mcp/client.js';
import { ensurePrivateDir, writeFileAtomic } from '../shared/private-files.js';
import { toolCommands } from './commands.js';
// Not completion/index.js: that one reaches the CLI's verbs, and through them the built-in server.
import { serverCacheKey } from './completion/cache-key.js';
import { completionTable } from './completion/table.js';

/** Which server a cached list belongs to: `--server <value>` or `--url <value>`, as typed. */
export type ServerSpec = { kind: 'server' | 'url'; value: string };

/** A server's tool list as last seen, so `--help` and completion need no connection. */
export type CachedToolList = {
  server: { name: string; version: string };
  /** SHA-256 of the list as JSON: tells whether a fresh list differs. */
  listHash: string;
  savedAt: string;
  /** The server said its list changed since: the next use that connects re-reads it. */
  stale: boolean;
  tools: ListedTool[];
};

const CACHE_VERSION = 1;

const CacheFile = z.object({
  version: z.literal(CACHE_VERSION),
  spec: z.object({ kind: z.enum(['server', 'url']), value: z.string() }),
  server: z.object({ name: z.string(), version: z.string() }),
  list_hash: z.string(),
  saved_at: z.string(),
  stale: z.boolean(),
  tools: z.array(
    z
      .looseObject({ name: z.string(), inputSchema: z.record(z.string(), z.unknown()) })
      .transform((tool) => tool as ListedTool),
  ),
});

/**
 * Tool lists of other servers, one pair of files per server under `<dataDir>/cache/tools/`:
 * `<key>.json` (the list, for help) and `<key>.tsv` (the table the completion scripts read),
 * where key = SHA-256 of `server:<value>` or `url:<value>`. Headers and env are not part of the
 * key and never stored here. A damaged or foreign file is simply a cache miss.
 */
export class ToolListCache {
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'cache', 'tools');
  }

  async read(spec: ServerSpec): Promise<CachedToolList | undefined> {
    let text: string;
    try {
      text = await readFile(this.path(spec, 'json'), 'utf8');
    } catch {
      return undefined;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return undefined;
    }
    const parsed = CacheFile.safeParse(json);
    if (!parsed.success || parsed.data.spec.kind !== spec.kind || parsed.data.spec.value !== spec.value)
      return undefined;
    const { server, list_hash, saved_at, stale, tools } = parsed.data;
    return { server, listHash: list_hash, savedAt: saved_at, stale, tools };
  }

  /** Saves a fresh list and its completion table (unless the same list is cached and current). */
  async write(
    spec: ServerSpec,
    server: { name: string; version: string },
    tools: readonly ListedTool[],
  ): Promise<void> {
    const listHash = hashOfList(tools);
    const previous = await this.read(spec);
    if (previous && previous.listHash === listHash && !previous.stale) return;
    await ensurePrivateDir(this.dir);
    const list = { server, listHash, savedAt: new Date().toISOString(), stale: false, tools: [...tools] };
    await this.save(spec, list);
    await writeFileAtomic(this.path(spec, 'tsv'), completionTable(toolCommands(tools)));
  }

  /** The server announced a changed list: keep the old one for help, but re-read it on next contact. */
  async markStale(spec: ServerSpec): Promise<void> {
    const cached = await this.read(spec);
    if (cached) await this.save(spec, { ...cached, stale: true });
  }

  private async save(spec: ServerSpec, list: CachedToolList): Promise<void> {
    const { server, listHash, savedAt, stale, tools } = list;
    const file = { version: CACHE_VERSION, spec, server, list_hash: listHash, saved_at: savedAt, stale, tools };
    await writeFileAtomic(this.path(spec, 'json'), JSON.stringify(file) + '\n');
  }

  private path(spec: ServerSpec, extension: 'json' | 'tsv'): string {
    return join(this.dir, `${serverCacheKey(spec.kind, spec.value)}.${extension}`);
  }
}

function hashOfList(tools: readonly ListedTool[]): string {
  return createHash('sha256').update(JSON.stringify(tools)).digest('hex');
}

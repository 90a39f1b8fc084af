import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { EraVerdict, ListedPrompt, ListedResource, ListedResourceTemplate, ListedTool } from '../mcp/session.js';
import { packageInfo } from '../shared/package-info.js';
import { ensurePrivateDir, readPrivateText, writeFileAtomic } from '../shared/private-files.js';
import { toolCommands } from './commands.js';
import { listingCompletionCommands, toolCompletionCommands } from './completion/model.js';
import { renderTable } from './completion/table.js';
import {
  CACHE_VERSION,
  eraStillRemembered,
  toolCacheDir,
  toolCachePath,
  type SeenEra,
  type ServerSpec,
} from './tool-cache-era.js';

export type { ServerSpec } from './tool-cache-era.js';

/** A server's tool list as last seen, so `--help` and completion need no connection. */
export type CachedToolList = {
  server: { name: string; version: string };
  /** SHA-256 of the list as JSON: tells whether a fresh list differs. */
  listHash: string;
  /**
   * SHA-256 of the server's name and version and its list as listed, before `tool_describe`
   * completed it: a fresh list with the same hash gets these tools without asking again.
   */
  listedHash?: string | undefined;
  savedAt: string;
  /** The server said its list changed since: the next use that connects re-reads it. */
  stale: boolean;
  tools: ListedTool[];
  /** The protocol era the server spoke, and when that was seen (absent: probe on connect). */
  era?: SeenEra | undefined;
};

const CacheFile = z.object({
  version: z.literal(CACHE_VERSION),
  spec: z.object({ kind: z.enum(['server', 'url']), value: z.string() }),
  server: z.object({ name: z.string(), version: z.string() }),
  list_hash: z.string(),
  listed_hash: z.string().optional(),
  saved_at: z.string(),
  stale: z.boolean(),
  era: z
    .object({
      verdict: z.discriminatedUnion('kind', [
        z.object({ kind: z.literal('legacy') }),
        z.object({ kind: z.literal('modern'), discover: z.record(z.string(), z.unknown()) }),
      ]),
      seen_at: z.string(),
    })
    .optional(),
  tools: z.array(
    z
      .looseObject({ name: z.string(), inputSchema: z.record(z.string(), z.unknown()) })
      .transform((tool) => tool as ListedTool),
  ),
});

/**
 * A server's resources, resource templates and prompts as last listed (`wallet resources`,
 * `wallet prompts`, …): what TAB offers after `resource` and `prompt`. Kept beside the tool list
 * in `<key>.listings.json`, which no tool call reads.
 */
export type ServerListings = {
  resources: Pick<ListedResource, 'uri' | 'name' | 'title' | 'description'>[];
  templates: Pick<ListedResourceTemplate, 'uriTemplate' | 'name' | 'title' | 'description'>[];
  prompts: ListedPrompt[];
};

const Described = { name: z.string(), title: z.string().optional(), description: z.string().optional() };

const ListingsFile = z.object({
  version: z.literal(CACHE_VERSION),
  spec: z.object({ kind: z.enum(['server', 'url']), value: z.string() }),
  resources: z.array(z.object({ uri: z.string(), ...Described })),
  templates: z.array(z.object({ uriTemplate: z.string(), ...Described })),
  prompts: z.array(
    z.object({
      ...Described,
      arguments: z
        .array(z.object({ name: z.string(), description: z.string().optional(), required: z.boolean().optional() }))
        .optional(),
    }),
  ),
});

/** What {@link ToolListCache.readEra} checks of a cached file: not its list. */
const CacheHead = CacheFile.pick({ version: true, spec: true, era: true });

/**
 * Tool lists of other servers, one pair of files per server under `<dataDir>/cache/tools/`:
 * `<key>.json` (the list, for help) and `<key>.tsv` (the table the completion scripts read),
 * where key = SHA-256 of `server:<value>` or `url:<value>`. Headers and env are not part of the
 * key and never stored here. A damaged or foreign file is simply a cache miss.
 */
export class ToolListCache {
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = toolCacheDir(dataDir);
  }

  async read(spec: ServerSpec): Promise<CachedToolList | undefined> {
    let text: string;
    try {
      text = readPrivateText(this.path(spec, 'json'));
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
    const { server, list_hash, listed_hash, saved_at, stale, tools, era } = parsed.data;
    return {
      server,
      listHash: list_hash,
      listedHash: listed_hash,
      savedAt: saved_at,
      stale,
      tools,
      era: era && { verdict: era.verdict, seenAt: era.seen_at },
    };
  }

  /**
   * The era to connect to a server in without a probe ({@link rememberedEra}), read from its
   * cached file without checking the list: what a run needs before it spawns the server.
   */
  async readEra(spec: ServerSpec): Promise<EraVerdict | undefined> {
    let json: unknown;
    try {
      json = JSON.parse(readPrivateText(this.path(spec, 'json')));
    } catch {
      return undefined;
    }
    const parsed = CacheHead.safeParse(json);
    if (!parsed.success || parsed.data.spec.kind !== spec.kind || parsed.data.spec.value !== spec.value)
      return undefined;
    const era = parsed.data.era;
    return rememberedEra({ era: era && { verdict: era.verdict, seenAt: era.seen_at } });
  }

  /**
   * Saves a fresh list, the era the server spoke and the completion table (unless the same list
   * and era are cached and current). `listedHash`: see {@link hashOfListed}. `read`: what the
   * caller has read of this cache already ({@link read}'s answer), so that it is not read again.
   */
  async write(
    spec: ServerSpec,
    server: { name: string; version: string },
    tools: readonly ListedTool[],
    era: EraVerdict,
    listedHash?: string,
    read?: { previous: CachedToolList | undefined },
  ): Promise<void> {
    const listHash = hashOfList(tools);
    const previous = read ? read.previous : await this.read(spec);
    const sameEra = JSON.stringify(previous?.era?.verdict) === JSON.stringify(era);
    const now = new Date().toISOString();
    if (
      previous &&
      previous.listHash === listHash &&
      previous.listedHash === listedHash &&
      !previous.stale &&
      sameEra &&
      rememberedEra(previous)
    )
      return;
    ensurePrivateDir(this.dir);
    const list = {
      server,
      listHash,
      listedHash,
      savedAt: now,
      stale: false,
      tools: [...tools],
      era: { verdict: era, seenAt: now },
    };
    await this.save(spec, list);
    this.writeTable(spec, tools, this.readListings(spec));
  }

  /** The server's resources, templates and prompts as last listed, if they were. */
  readListings(spec: ServerSpec): ServerListings | undefined {
    let json: unknown;
    try {
      json = JSON.parse(readPrivateText(this.path(spec, 'listings.json')));
    } catch {
      return undefined;
    }
    const parsed = ListingsFile.safeParse(json);
    if (!parsed.success || parsed.data.spec.kind !== spec.kind || parsed.data.spec.value !== spec.value)
      return undefined;
    const { resources, templates, prompts } = parsed.data;
    return { resources, templates, prompts };
  }

  /**
   * Saves what was just listed of resources and prompts (a part not given keeps its last
   * listing) and rewrites the completion table, tools and all, when that changed anything.
   */
  async writeListings(spec: ServerSpec, fresh: Partial<ServerListings>): Promise<void> {
    const previous = this.readListings(spec);
    const listings: ServerListings = {
      resources: (fresh.resources ?? previous?.resources ?? []).map(({ uri, name, title, description }) => ({
        uri,
        name,
        ...(title === undefined ? {} : { title }),
        ...(description === undefined ? {} : { description }),
      })),
      templates: (fresh.templates ?? previous?.templates ?? []).map(({ uriTemplate, name, title, description }) => ({
        uriTemplate,
        name,
        ...(title === undefined ? {} : { title }),
        ...(description === undefined ? {} : { description }),
      })),
      prompts: fresh.prompts ?? previous?.prompts ?? [],
    };
    // What the file's parser would refuse (a server's odd entry) is not kept: a cache, not a record.
    const file = ListingsFile.safeParse({ version: CACHE_VERSION, spec, ...listings });
    if (!file.success || JSON.stringify(previous) === JSON.stringify(listings)) return;
    ensurePrivateDir(this.dir);
    writeFileAtomic(this.path(spec, 'listings.json'), JSON.stringify(file.data) + '\n');
    this.writeTable(spec, (await this.read(spec))?.tools ?? [], listings);
  }

  /** `<key>.tsv`: the tool commands, and the resources and prompts under `resource` and `prompt`. */
  private writeTable(spec: ServerSpec, tools: readonly ListedTool[], listings: ServerListings | undefined): void {
    const commands = [
      ...toolCompletionCommands(toolCommands(tools)),
      ...(listings ? listingCompletionCommands(listings) : []),
    ];
    writeFileAtomic(this.path(spec, 'tsv'), renderTable(commands, []));
  }

  /** The server announced a changed list: keep the old one for help, but re-read it on next contact. */
  async markStale(spec: ServerSpec): Promise<void> {
    const cached = await this.read(spec);
    if (cached) await this.save(spec, { ...cached, stale: true });
  }

  /** The remembered era failed: the next connection probes again. */
  async forgetEra(spec: ServerSpec): Promise<void> {
    const cached = await this.read(spec);
    if (cached?.era) await this.save(spec, { ...cached, era: undefined });
  }

  private async save(spec: ServerSpec, list: CachedToolList): Promise<void> {
    const { server, listHash, listedHash, savedAt, stale, tools, era } = list;
    const file = {
      version: CACHE_VERSION,
      spec,
      server,
      list_hash: listHash,
      ...(listedHash === undefined ? {} : { listed_hash: listedHash }),
      saved_at: savedAt,
      stale,
      ...(era ? { era: { verdict: era.verdict, seen_at: era.seenAt } } : {}),
      tools,
    };
    writeFileAtomic(this.path(spec, 'json'), JSON.stringify(file) + '\n');
  }

  private path(spec: ServerSpec, extension: 'json' | 'tsv' | 'listings.json'): string {
    return toolCachePath(this.dir, spec, extension);
  }
}

/** The era to connect in without a probe: a modern verdict, or a legacy one seen within the horizon. */
export function rememberedEra(cached: Pick<CachedToolList, 'era'>, now = Date.now()): EraVerdict | undefined {
  const era = cached.era;
  return era && eraStillRemembered(era.verdict.kind, era.seenAt, now) ? era.verdict : undefined;
}

function hashOfList(tools: readonly ListedTool[]): string {
  return createHash('sha256').update(JSON.stringify(tools)).digest('hex');
}

/** Bumped when the way the CLI completes a lean list changes: a list completed otherwise is not reused. */
const COMPLETION_FORMAT = 1;

/**
 * What a lean list (one `tool_describe` completes) is identified by: the server's name and
 * version and the list as it came (with the digest of the server's definitions, when it sends
 * one), and this CLI's version and way of completing it. See `withFullDefinitions`.
 */
export function hashOfListed(server: { name: string; version: string }, tools: readonly ListedTool[]): string {
  const client = { version: packageInfo().version, completion: COMPLETION_FORMAT };
  return createHash('sha256').update(JSON.stringify({ client, server, tools })).digest('hex');
}

import { join } from 'node:path';
import type { EraVerdict } from '../mcp/session.js';
import { readPrivateText } from '../shared/private-files.js';
import { serverCacheKey } from './completion/cache-key.js';

/**
 * Where a server's cached tool list lives (`tool-cache.ts`) and the era it remembers, without
 * zod: shared with the small bundle `bin/wallet.js` runs before the CLI's (`src/startup/ahead.ts`), which
 * must load in a few milliseconds.
 */

/** Which server a cached list belongs to: `--server <value>` or `--url <value>`, as typed. */
export type ServerSpec = { kind: 'server' | 'url'; value: string };

/** The protocol era a server spoke, and when that was seen. */
export type SeenEra = { verdict: EraVerdict; seenAt: string };

export const CACHE_VERSION = 1;

/**
 * How long a remembered 2025-era verdict is used instead of probing. A server upgraded to the
 * 2026 era still answers `initialize`, so an old legacy verdict never fails: it would only keep
 * the connection in the older era for ever. A modern verdict that went wrong fails at the first
 * request, and the CLI then probes again.
 */
const LEGACY_ERA_HORIZON_MS = 24 * 60 * 60 * 1000;

/** The folder of the cached lists, `<dataDir>/cache/tools/`. */
export function toolCacheDir(dataDir: string): string {
  return join(dataDir, 'cache', 'tools');
}

/** A cached list's file: key = SHA-256 of `server:<value>` or `url:<value>` (see serverCacheKey). */
export function toolCachePath(dir: string, spec: ServerSpec, extension: 'json' | 'tsv' | 'listings.json'): string {
  return join(dir, `${serverCacheKey(spec.kind, spec.value)}.${extension}`);
}

/** Whether an era of this kind, seen at `seenAt`, is still spoken without a probe: a modern one, or a legacy one within the horizon. */
export function eraStillRemembered(kind: string, seenAt: string, now = Date.now()): boolean {
  if (kind === 'modern') return true;
  const age = now - Date.parse(seenAt);
  return age >= 0 && age < LEGACY_ERA_HORIZON_MS;
}

/**
 * Whether the cached list of `spec` seems to remember an era to connect in without a probe, read
 * without zod: src/startup/ahead.ts spawns the server on it, and the CLI checks the file with its schema
 * (`ToolListCache.readEra`) before it adopts that process, or ends it.
 */
export function mayRememberEra(dataDir: string, spec: ServerSpec): boolean {
  let head: unknown;
  try {
    head = JSON.parse(readPrivateText(toolCachePath(toolCacheDir(dataDir), spec, 'json')));
  } catch {
    return false;
  }
  const era = member(head, 'era');
  const kind = member(member(era, 'verdict'), 'kind');
  const seenAt = member(era, 'seen_at');
  return (
    member(head, 'version') === CACHE_VERSION &&
    member(member(head, 'spec'), 'kind') === spec.kind &&
    member(member(head, 'spec'), 'value') === spec.value &&
    typeof kind === 'string' &&
    typeof seenAt === 'string' &&
    eraStillRemembered(kind, seenAt)
  );
}

function member(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

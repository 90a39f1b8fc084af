import { readFile } from 'node:fs/promises';
import { posix, win32 } from 'node:path';
import { UsageError } from '../usage-error.js';
import { ENTRY_KEYS, errorCode, isErrnoCode, parseServerEntry, type ServerEntry } from './config.js';
import { describeJsonError, jsonPath } from './json-problems.js';

/** The agents whose config files `wallet servers import` knows where to find. */
export const AGENTS = ['claude-desktop', 'claude-code', 'cursor'] as const;
export type Agent = (typeof AGENTS)[number];

/** Where to look, injectable so tests point it at temporary folders. */
export type AgentConfigContext = {
  home: string;
  cwd: string;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
};

export type AgentConfigLocation = { agent: Agent; path: string };

/**
 * Every file an agent may keep its `mcpServers` in, for all agents or only `only`, in import
 * order: a project's files before the user's, as the agents let a project's server win.
 *
 * @example
 * agentConfigLocations({ home: '/home/me', cwd: '/src/app', platform: 'linux', env: {} }, 'cursor')
 * // [{ agent: 'cursor', path: '/src/app/.cursor/mcp.json' }, { agent: 'cursor', path: '/home/me/.cursor/mcp.json' }]
 */
export function agentConfigLocations(context: AgentConfigContext, only?: Agent): AgentConfigLocation[] {
  const { home, cwd, platform, env } = context;
  const path = platform === 'win32' ? win32 : posix;
  const claudeDesktopDir =
    platform === 'darwin'
      ? path.join(home, 'Library', 'Application Support', 'Claude')
      : platform === 'win32'
        ? path.join(env['APPDATA'] || path.join(home, 'AppData', 'Roaming'), 'Claude')
        : path.join(home, '.config', 'Claude');
  const byAgent: Record<Agent, string[]> = {
    'claude-desktop': [path.join(claudeDesktopDir, 'claude_desktop_config.json')],
    'claude-code': [path.join(cwd, '.mcp.json'), path.join(home, '.claude.json')],
    cursor: [path.join(cwd, '.cursor', 'mcp.json'), path.join(home, '.cursor', 'mcp.json')],
  };
  const locations = new Map<string, AgentConfigLocation>();
  for (const agent of AGENTS.filter((candidate) => only === undefined || candidate === only)) {
    for (const file of byAgent[agent]) if (!locations.has(file)) locations.set(file, { agent, path: file });
  }
  return [...locations.values()];
}

/** One server found in an agent's file: ready to import, or skipped with the reason. */
export type ImportCandidate =
  | { name: string; source: string; entry: ServerEntry; ignoredKeys: string[] }
  | { name: string; source: string; skip: string };

/**
 * The servers of one agent config file: its top-level `mcpServers`, and, in a ~/.claude.json, the
 * `mcpServers` of the project at `cwd` (listed first: Claude Code lets it win). Undefined when the
 * file does not exist; an empty list when it has no `mcpServers`. A file that cannot be read or is
 * not JSON is a UsageError naming it (never quoting it: it may hold tokens).
 */
export async function readAgentConfig(
  path: string,
  context: Pick<AgentConfigContext, 'cwd' | 'platform'>,
): Promise<{ candidates: ImportCandidate[]; hasServers: boolean } | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) return undefined;
    throw new UsageError(`Cannot read ${path}: ${errorCode(error)}.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path} is ${describeJsonError(error, text)}; nothing was imported.`);
  }
  if (!isRecord(json)) throw new UsageError(`${path} is not a JSON object; nothing was imported.`);
  const sections: { source: string; where: string[]; servers: unknown }[] = [];
  const projects = json['projects'];
  if (isRecord(projects)) {
    for (const key of projectKeys(context)) {
      const project = projects[key];
      if (isRecord(project) && project['mcpServers'] !== undefined) {
        sections.push({
          source: `${path} ${jsonPath(['projects', key])}`,
          where: ['projects', key, 'mcpServers'],
          servers: project['mcpServers'],
        });
        break;
      }
    }
  }
  if (json['mcpServers'] !== undefined)
    sections.push({ source: path, where: ['mcpServers'], servers: json['mcpServers'] });
  const candidates: ImportCandidate[] = [];
  for (const section of sections) {
    if (!isRecord(section.servers)) {
      throw new UsageError(`${path}: ${jsonPath(section.where)} is not an object of servers; nothing was imported.`);
    }
    for (const [name, raw] of Object.entries(section.servers)) {
      candidates.push({ name, source: section.source, ...candidateEntry(raw) });
    }
  }
  return { candidates, hasServers: sections.length > 0 };
}

/** ~/.claude.json keys projects by absolute path; on Windows it has been seen with either slash. */
function projectKeys({ cwd, platform }: Pick<AgentConfigContext, 'cwd' | 'platform'>): string[] {
  return platform === 'win32' ? [...new Set([cwd, cwd.replaceAll('\\', '/')])] : [cwd];
}

const HTTP_TYPES = new Set(['http', 'streamable-http', 'streamableHttp']);

/**
 * An agent's entry in this file's shape. Accepted: stdio `{command, args?, env?, type?: "stdio"}`
 * and HTTP `{url, headers?, type?: "http" | "streamable-http"}` (Cursor leaves `type` out). Other
 * keys (`disabled`, `autoApprove`, …) are not ours: left out and reported.
 */
function candidateEntry(raw: unknown): { entry: ServerEntry; ignoredKeys: string[] } | { skip: string } {
  if (!isRecord(raw)) return { skip: 'not an object' };
  const type = raw['type'];
  if (type !== undefined && typeof type !== 'string') return { skip: '"type" is not text' };
  if (type === 'sse') {
    return {
      skip: 'SSE is not supported here, only stdio and Streamable HTTP (add its /mcp URL if it has one)',
    };
  }
  const kind =
    type === 'stdio'
      ? 'stdio'
      : type !== undefined && HTTP_TYPES.has(type)
        ? 'http'
        : type === undefined
          ? undefined
          : 'unknown';
  if (kind === 'unknown') return { skip: `transport "${String(type)}" is not supported here` };
  const resolved = kind ?? ('url' in raw ? 'http' : 'command' in raw ? 'stdio' : undefined);
  if (resolved === undefined) return { skip: 'neither "command" nor "url"' };
  if (resolved === 'http' && !('url' in raw)) return { skip: 'an HTTP server without "url"' };
  if (resolved === 'stdio' && !('command' in raw)) return { skip: 'a stdio server without "command"' };
  const keys: readonly string[] = ENTRY_KEYS[resolved];
  const picked = Object.fromEntries(Object.entries(raw).filter(([key]) => keys.includes(key)));
  const parsed = parseServerEntry(picked);
  if (!parsed.ok) return { skip: parsed.problem };
  const ignoredKeys = Object.keys(raw).filter((key) => key !== 'type' && !keys.includes(key));
  return { entry: parsed.entry, ignoredKeys };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

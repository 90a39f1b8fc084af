import { readFile } from 'node:fs/promises';
import { posix, win32 } from 'node:path';
import { UsageError } from '../usage-error.js';
import { ENTRY_KEYS, errorCode, isErrnoCode, parseServerEntry, type ServerEntry } from './config.js';
import { parseAgentFile } from './agent-syntax.js';
import { jsonPath } from './json-problems.js';

/** The agents whose config files `wallet servers import` reads and `wallet setup` writes. */
export const AGENTS = ['claude-desktop', 'claude-code', 'cursor', 'vscode', 'codex', 'gemini'] as const;
export type Agent = (typeof AGENTS)[number];

/** Where to look, injectable so tests point it at temporary folders. */
export type AgentConfigContext = {
  home: string;
  cwd: string;
  platform: NodeJS.Platform;
  env: Readonly<Record<string, string | undefined>>;
};

/** A project's file (in the folder the agent is started in) or the user's (in the home folder). */
export type AgentScope = 'project' | 'user';

export type AgentConfigLocation = { agent: Agent; path: string };

/**
 * How an agent writes its servers down: the syntax of its file (`jsonc`: JSON that may hold
 * comments, as VS Code and Gemini CLI accept), the key of its servers object, and whether a stdio
 * entry says `"type": "stdio"` (VS Code requires it; Claude Code writes it).
 */
export type AgentFormat = { syntax: 'json' | 'jsonc' | 'toml'; serversKey: string; stdioType: boolean };

export const AGENT_FORMATS: Readonly<Record<Agent, AgentFormat>> = {
  'claude-desktop': { syntax: 'json', serversKey: 'mcpServers', stdioType: false },
  'claude-code': { syntax: 'json', serversKey: 'mcpServers', stdioType: true },
  cursor: { syntax: 'json', serversKey: 'mcpServers', stdioType: false },
  vscode: { syntax: 'jsonc', serversKey: 'servers', stdioType: true },
  codex: { syntax: 'toml', serversKey: 'mcp_servers', stdioType: false },
  gemini: { syntax: 'jsonc', serversKey: 'mcpServers', stdioType: false },
};

/**
 * The files one agent keeps its servers in, each with its scope: the project's first. Claude
 * Desktop has only the user's.
 *
 * @example
 * agentConfigFiles({ home: '/home/me', cwd: '/src/app', platform: 'linux', env: {} }, 'codex')
 * // [{ agent: 'codex', scope: 'project', path: '/src/app/.codex/config.toml' },
 * //  { agent: 'codex', scope: 'user', path: '/home/me/.codex/config.toml' }]
 */
export function agentConfigFiles(
  context: AgentConfigContext,
  agent: Agent,
): (AgentConfigLocation & { scope: AgentScope })[] {
  const { home, cwd, platform, env } = context;
  const path = platform === 'win32' ? win32 : posix;
  const appData = env['APPDATA'] || path.join(home, 'AppData', 'Roaming');
  // Where Electron apps keep their settings: Claude Desktop's and VS Code's folders are in it.
  const appSettings =
    platform === 'darwin'
      ? path.join(home, 'Library', 'Application Support')
      : platform === 'win32'
        ? appData
        : env['XDG_CONFIG_HOME'] || path.join(home, '.config');
  const files: Record<Agent, [AgentScope, string][]> = {
    'claude-desktop': [['user', path.join(appSettings, 'Claude', 'claude_desktop_config.json')]],
    'claude-code': [
      ['project', path.join(cwd, '.mcp.json')],
      ['user', path.join(home, '.claude.json')],
    ],
    cursor: [
      ['project', path.join(cwd, '.cursor', 'mcp.json')],
      ['user', path.join(home, '.cursor', 'mcp.json')],
    ],
    vscode: [
      ['project', path.join(cwd, '.vscode', 'mcp.json')],
      ['user', path.join(appSettings, 'Code', 'User', 'mcp.json')],
    ],
    codex: [
      ['project', path.join(cwd, '.codex', 'config.toml')],
      ['user', path.join(env['CODEX_HOME'] || path.join(home, '.codex'), 'config.toml')],
    ],
    gemini: [
      ['project', path.join(cwd, '.gemini', 'settings.json')],
      ['user', path.join(home, '.gemini', 'settings.json')],
    ],
  };
  return files[agent].map(([scope, file]) => ({ agent, scope, path: file }));
}

/**
 * Every file an agent may keep its servers in, for all agents or only `only`, in import order: a
 * project's files before the user's, as the agents let a project's server win. A file two agents
 * share (a project in the home folder) is listed once.
 *
 * @example
 * agentConfigLocations({ home: '/home/me', cwd: '/src/app', platform: 'linux', env: {} }, 'cursor')
 * // [{ agent: 'cursor', path: '/src/app/.cursor/mcp.json' }, { agent: 'cursor', path: '/home/me/.cursor/mcp.json' }]
 */
export function agentConfigLocations(context: AgentConfigContext, only?: Agent): AgentConfigLocation[] {
  const locations = new Map<string, AgentConfigLocation>();
  for (const agent of AGENTS.filter((candidate) => only === undefined || candidate === only)) {
    for (const { path } of agentConfigFiles(context, agent)) {
      if (!locations.has(path)) locations.set(path, { agent, path });
    }
  }
  return [...locations.values()];
}

/** One server found in an agent's file: ready to import, or skipped with the reason. */
export type ImportCandidate =
  | { name: string; source: string; entry: ServerEntry; ignoredKeys: string[] }
  | { name: string; source: string; skip: string };

/**
 * The servers of one agent config file: its top-level `mcpServers` (VS Code's `servers`, Codex's
 * `mcp_servers`), and, in a ~/.claude.json, the `mcpServers` of the project at `cwd` (listed
 * first: Claude Code lets it win). The syntax is the agent's when it is known, else TOML for a
 * `.toml` file and JSON for any other. Undefined when the file does not exist; an empty list when
 * it has no servers. A file that cannot be read or does not parse is a UsageError naming it (never
 * quoting it: it may hold tokens).
 */
export async function readAgentConfig(
  path: string,
  context: Pick<AgentConfigContext, 'cwd' | 'platform'>,
  agent?: Agent,
): Promise<{ candidates: ImportCandidate[]; hasServers: boolean } | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) return undefined;
    throw new UsageError(`Cannot read ${path}: ${errorCode(error)}.`);
  }
  const syntax = agent ? AGENT_FORMATS[agent].syntax : path.endsWith('.toml') ? 'toml' : 'json';
  const parsed = await parseAgentFile(text, syntax);
  if (!parsed.ok) throw new UsageError(`${path} is ${parsed.problem}; nothing was imported.`);
  const json = parsed.document;
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
  const key = SERVERS_KEYS.find((candidate) => json[candidate] !== undefined);
  if (key !== undefined) sections.push({ source: path, where: [key], servers: json[key] });
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

/** The keys agents keep their servers under: most `mcpServers`, VS Code `servers`, Codex `mcp_servers`. */
const SERVERS_KEYS = [...new Set(Object.values(AGENT_FORMATS).map((format) => format.serversKey))];

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

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

import { lstatSync } from 'node:fs';
import { z } from 'zod';
import {
  checkPrivateFile,
  ensurePrivateDir,
  readPrivateText,
  UnsafeFileError,
  writeFileAtomic,
} from '../../shared/private-files.js';
import { asOwnerVerb } from '../owner-errors.js';
import { closestNames } from '../suggest.js';
import { UsageError } from '../usage-error.js';
import { expandReferences, MissingVariableError } from './expand.js';
import { describeIssue, describeJsonError } from './json-problems.js';
import { ENV_NAME, HEADER_NAME, SERVER_NAME, SERVER_NAME_RULE, serversFilePath } from './names.js';

export { SERVER_NAME, SERVER_NAME_RULE, serversFilePath } from './names.js';

const NoLineBreaks = z.string().regex(/^[^\r\n\0]*$/, 'must not contain line breaks');

const StdioEntry = z.strictObject({
  command: z.string().min(1, 'must not be empty'),
  args: z.array(z.string()).optional(),
  env: z.record(z.string().regex(ENV_NAME, 'not a valid environment variable name'), z.string()).optional(),
  keep_alive: z.boolean().optional(),
});

const HttpEntry = z.strictObject({
  url: z.string().superRefine((url, context) => {
    const problem = urlProblem(url);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  }),
  headers: z.record(z.string().regex(HEADER_NAME, 'not a valid header name'), NoLineBreaks).optional(),
  keep_alive: z.boolean().optional(),
});

/** The keys each kind of entry has; anything else in an agent's config is not ours to keep. */
export const ENTRY_KEYS = { stdio: ['command', 'args', 'env'], http: ['url', 'headers'] } as const;

const ServersFile = z.strictObject({
  mcpServers: z.record(
    z.string().regex(SERVER_NAME, `not a valid server name (${SERVER_NAME_RULE})`),
    z.record(z.string(), z.unknown()),
  ),
});

/**
 * A server started as a child process, speaking MCP on stdio. Values may hold `${VAR}` references.
 * `keep_alive`: calls go through the kept-alive servers' daemon (src/cli/daemon/), which keeps
 * the server running between them.
 */
type StdioServerEntry = { command: string; args?: string[]; env?: Record<string, string>; keep_alive?: boolean };

/** A server reached over Streamable HTTP. Values may hold `${VAR}` references. `keep_alive`: as for stdio. */
export type HttpServerEntry = { url: string; headers?: Record<string, string>; keep_alive?: boolean };

export type ServerEntry = StdioServerEntry | HttpServerEntry;

/** The named servers, by name, in file order: the `mcpServers` object of servers.json. */
export type NamedServers = Record<string, ServerEntry>;

export function isHttpEntry(entry: ServerEntry): entry is HttpServerEntry {
  return 'url' in entry;
}

/**
 * The named servers of `<dataDir>/servers.json`, checked: none when the file does not exist; a
 * damaged file is a UsageError that names the file and the problem (never a value from it).
 *
 * @example
 * const servers = await loadServers(resolveDataDir());
 * Object.keys(servers) // ['github', 'linear']
 */
export async function loadServers(dataDir: string): Promise<NamedServers> {
  const path = serversFilePath(dataDir);
  const file = remembering ? fileIdentity(path) : undefined;
  if (file !== undefined && remembered?.identity === file.identity) return remembered.servers;
  const servers = await readServers(path);
  if (file?.settled) remembered = { identity: file.identity, servers: deepFreeze(servers) };
  return servers;
}

/**
 * How long ago servers.json must have last changed for what was parsed of it to be kept. Its
 * times are only as fine as the filesystem's (a second on some, two on FAT) or the kernel's clock
 * tick (Linux before 6.13): a file changed that recently can change again, at the same size, with
 * the same times and, replaced by a rename, the same recycled inode, and the daemon would serve
 * the old servers until the next change. Until it is older than this it is parsed on every call
 * (as git treats a file as racy when it changed as late as its index was written).
 */
const SETTLED_MS = 3_000;

/**
 * Whether {@link loadServers} keeps what it parsed for the next call, while the file stays the
 * same file with the same content: the kept-alive servers' daemon (src/cli/daemon/server.ts), a
 * long-lived process that reads servers.json on every call it is sent. Off in the CLI's
 * one-command processes.
 */
let remembering = false;
/** The servers last parsed, frozen (no caller may change what the next one gets), and the file's identity then. */
let remembered: { identity: string; servers: NamedServers } | undefined;

/** From now on, {@link loadServers} parses servers.json again only when it changed. */
export function rememberServers(): void {
  remembering = true;
}

/**
 * What tells one version of servers.json from another without reading it: its path, device,
 * inode (an atomic write is a new one), size, and the times of its last change of content and of
 * status (a write in place, a chmod), from an `lstat` that follows no link. The file is checked
 * as a read checks it ({@link checkPrivateFile}: a link, another user's file or one others can
 * write is refused on every call, not only when it is first parsed). `undefined` when it is not
 * there or cannot be examined: then it is read as usual, which says what is wrong. `settled`:
 * it last changed more than {@link SETTLED_MS} ago, so that its next change will show.
 */
function fileIdentity(path: string): { identity: string; settled: boolean } | undefined {
  let info;
  try {
    info = lstatSync(path);
  } catch {
    return undefined;
  }
  checkPrivateFile(path, info);
  return {
    identity: `${path}\0${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`,
    settled: Date.now() - Math.max(info.mtimeMs, info.ctimeMs) > SETTLED_MS,
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

async function readServers(path: string): Promise<NamedServers> {
  let text: string;
  try {
    text = readPrivateText(path);
  } catch (error) {
    if (isErrnoCode(error, 'ENOENT')) return {};
    if (error instanceof UnsafeFileError) throw error;
    throw new UsageError(`Cannot read ${path}: ${errorCode(error)}.`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw damaged(path, describeJsonError(error, text));
  }
  const checked = ServersFile.safeParse(json);
  if (!checked.success) throw damaged(path, describeIssue(checked.error.issues[0]));
  const servers: NamedServers = {};
  for (const [name, raw] of Object.entries(checked.data.mcpServers)) {
    const entry = parseServerEntry(raw, ['mcpServers', name]);
    if (!entry.ok) throw damaged(path, entry.problem);
    servers[name] = entry.entry;
  }
  return servers;
}

export type ParsedEntry = { ok: true; entry: ServerEntry } | { ok: false; problem: string };

/**
 * One entry in this file's shape, checked: an object with `url` is HTTP, anything else stdio. A
 * problem is named by its path under `where` and never quotes a value.
 */
export function parseServerEntry(
  raw: Readonly<Record<string, unknown>>,
  where: readonly PropertyKey[] = [],
): ParsedEntry {
  const result = 'url' in raw ? HttpEntry.safeParse(raw) : StdioEntry.safeParse(raw);
  return result.success
    ? { ok: true, entry: result.data as ServerEntry }
    : { ok: false, problem: describeIssue(result.error.issues[0], where) };
}

/**
 * Why `url` cannot be an MCP endpoint, or nothing when it can: http or https only. A URL holding a
 * `${VAR}` reference is checked once expanded, when connecting.
 */
export function urlProblem(url: string): string | undefined {
  if (url.includes('${')) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a URL (e.g. https://example.com/mcp)';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return `must be http or https, not ${parsed.protocol.replace(/:$/, '')}`;
  }
  return undefined;
}

/**
 * Whether `url` carries a user or a password (even as `${VAR}` references): a connection refuses
 * such a URL (`--url`, a saved server's), so `servers add` and `servers import` refuse to save one,
 * and the password typed with it on `add` would be in `ps` and the shell history besides.
 */
export function urlCarriesCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== '' || parsed.password !== '';
  } catch {
    return false;
  }
}

/**
 * Changes servers.json: reads it and writes what `change` returns (nothing when it returns
 * undefined) holding the file's lock (`<dataDir>/locks/servers-json`), so two processes that change it at once both land. Returns
 * what `change` decided, with the servers as written.
 */
export async function updateServers<T>(
  dataDir: string,
  change: (servers: NamedServers) => { servers: NamedServers | undefined; result: T },
): Promise<T> {
  const { withNamedLock } = await import('../../domain/keystore/lock.js');
  return asOwnerVerb(() =>
    withNamedLock(dataDir, 'servers-json', async () => {
      // Read afresh, never the daemon's kept copy: `change` may edit what it is given.
      const { servers, result } = change(await readServers(serversFilePath(dataDir)));
      if (servers !== undefined) await saveServers(dataDir, servers);
      return result;
    }),
  );
}

/**
 * Writes the named servers to `<dataDir>/servers.json`: owner-only (0600) in an owner-only folder
 * (0700), atomically, since env values and headers may hold tokens.
 */
export async function saveServers(dataDir: string, servers: NamedServers): Promise<void> {
  ensurePrivateDir(dataDir);
  const mcpServers: NamedServers = {};
  for (const [name, entry] of Object.entries(servers)) mcpServers[name] = canonical(entry);
  writeFileAtomic(serversFilePath(dataDir), JSON.stringify({ mcpServers }, null, 2) + '\n');
}

/** Keys in the order people know from agent configs; empty env and headers left out. */
function canonical(entry: ServerEntry): ServerEntry {
  if (isHttpEntry(entry)) {
    return {
      url: entry.url,
      ...(entry.headers && Object.keys(entry.headers).length > 0 ? { headers: entry.headers } : {}),
      ...(entry.keep_alive === true ? { keep_alive: true } : {}),
    };
  }
  return {
    command: entry.command,
    args: entry.args ?? [],
    ...(entry.env && Object.keys(entry.env).length > 0 ? { env: entry.env } : {}),
    ...(entry.keep_alive === true ? { keep_alive: true } : {}),
  };
}

function damaged(path: string, problem: string): UsageError {
  return new UsageError(
    `${path} is damaged: ${problem}.`,
    'Fix it by hand (it is JSON: { "mcpServers": { … } }), or move it away and add the servers again.',
  );
}

export function isErrnoCode(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}

export function errorCode(error: unknown): string {
  const code = error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
  return code ?? (error instanceof Error ? error.message : String(error));
}

/** A named server ready to connect to: every `${VAR}` reference expanded. */
export type ResolvedServer =
  | { kind: 'stdio'; name: string; command: string; args: string[]; env: Record<string, string> }
  | { kind: 'http'; name: string; url: string; headers: Record<string, string> };

/**
 * The server called `name`, with `${VAR}` and `${VAR:-default}` expanded from `env` in every
 * value (command, args, env, url, headers). An unknown name, a variable that is unset and has no
 * default, or a URL that is not http(s) once expanded is a UsageError; no value is ever quoted.
 *
 * @example
 * const servers = { api: { url: 'https://${HOST:-example.com}/mcp', headers: { Authorization: 'Bearer ${TOKEN}' } } };
 * resolveNamedServer(servers, 'api', { TOKEN: 't0k' })
 * // { kind: 'http', name: 'api', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer t0k' } }
 */
export function resolveNamedServer(
  servers: Readonly<NamedServers>,
  name: string,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedServer {
  const entry = Object.hasOwn(servers, name) ? servers[name] : undefined;
  if (entry === undefined) throw unknownServer(servers, name);
  const expand = (text: string, where: string): string => {
    try {
      return expandReferences(text, env);
    } catch (error) {
      if (!(error instanceof MissingVariableError)) throw error;
      throw new UsageError(
        `Server '${name}' needs the environment variable ${error.variable} (its ${where} says \${${error.variable}}), and it is not set.`,
        `Set it, e.g. export ${error.variable}=…, or write \${${error.variable}:-default} in servers.json.`,
      );
    }
  };
  const expandAll = (record: Readonly<Record<string, string>> | undefined, where: string): Record<string, string> =>
    Object.fromEntries(Object.entries(record ?? {}).map(([key, value]) => [key, expand(value, `${where} ${key}`)]));
  if (isHttpEntry(entry)) {
    const url = expand(entry.url, 'url');
    const problem = urlProblem(url);
    if (problem) throw new UsageError(`Server '${name}': its url, once expanded, is wrong: ${problem}.`);
    return { kind: 'http', name, url, headers: expandAll(entry.headers, 'header') };
  }
  return {
    kind: 'stdio',
    name,
    command: expand(entry.command, 'command'),
    args: (entry.args ?? []).map((arg, index) => expand(arg, `argument ${index + 1}`)),
    env: expandAll(entry.env, 'env'),
  };
}

/** No server of that name: suggests the closest names, or how to add one. */
export function unknownServer(servers: Readonly<NamedServers>, name: string): UsageError {
  const names = Object.keys(servers);
  const near = closestNames(name, names);
  return new UsageError(
    `No server named '${name}' in 'wallet servers'.`,
    near.length > 0
      ? `Did you mean ${near.join(' or ')}?`
      : names.length > 0
        ? `Known: ${names.slice(0, 8).join(', ')}${names.length > 8 ? ', …' : ''} ('wallet servers list').`
        : "Add one with 'wallet servers add' or 'wallet servers import'.",
  );
}

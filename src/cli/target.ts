import type { HttpServerAddress, StdioServerCommand } from '../mcp/client.js';
import type { GlobalOptions } from './global-flags.js';
import { splitCommandLine } from './server-command.js';
import { loadServers, resolveNamedServer } from './servers/config.js';
import type { ServerSpec } from './tool-cache.js';
import { UsageError } from './usage-error.js';

/** The server a CLI run talks to: its own (in-process), or another one over stdio or HTTP. */
export type Target =
  | { kind: 'built-in' }
  | { kind: 'stdio'; spec: ServerSpec; command: StdioServerCommand }
  | { kind: 'http'; spec: ServerSpec; address: HttpServerAddress };

const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Where `--server`, `--url`, `--env` and `--header` point. `--server <word>` is a named server
 * when `wallet servers` knows that name, else a command line; `--env` and `--header` add to (and
 * override) a named server's own.
 */
export async function resolveTarget(globals: GlobalOptions, dataDir: string, env: NodeJS.ProcessEnv): Promise<Target> {
  const extraEnv = parsePairs(globals.env, '--env', parseEnvPair);
  const extraHeaders = parsePairs(globals.headers, '--header', parseHeader);
  if (globals.server !== undefined && globals.url !== undefined) {
    throw new UsageError('Give --server or --url, not both.');
  }
  if (globals.url !== undefined) {
    if (globals.env.length > 0)
      throw new UsageError('--env sets the environment of a --server command; not with --url.');
    return {
      kind: 'http',
      spec: { kind: 'url', value: globals.url },
      address: { url: parseUrl(globals.url), headers: extraHeaders },
    };
  }
  if (globals.server === undefined) {
    if (globals.env.length > 0 || globals.headers.length > 0) {
      throw new UsageError('--env and --header are for another server (--server or --url), not the built-in one.');
    }
    return { kind: 'built-in' };
  }
  const spec: ServerSpec = { kind: 'server', value: globals.server };
  if (SERVER_NAME.test(globals.server)) {
    const servers = await loadServers(dataDir);
    if (globals.server in servers) {
      const named = resolveNamedServer(servers, globals.server, env);
      if (named.kind === 'http') {
        if (globals.env.length > 0) throw new UsageError(`--env: server '${globals.server}' is reached over HTTP.`);
        return {
          kind: 'http',
          spec,
          address: { url: parseUrl(named.url), headers: { ...named.headers, ...extraHeaders } },
        };
      }
      if (globals.headers.length > 0)
        throw new UsageError(`--header: server '${globals.server}' is a command (stdio).`);
      return {
        kind: 'stdio',
        spec,
        command: { command: named.command, args: named.args, env: { ...named.env, ...extraEnv }, stderr: 'inherit' },
      };
    }
  }
  if (globals.headers.length > 0) throw new UsageError('--header is for --url (HTTP); --server runs a command.');
  return { kind: 'stdio', spec, command: { ...splitCommandLine(globals.server), env: extraEnv, stderr: 'inherit' } };
}

function parsePairs(
  values: readonly string[],
  flag: string,
  parse: (value: string, flag: string) => [string, string],
): Record<string, string> {
  return Object.fromEntries(values.map((value) => parse(value, flag)));
}

function parseEnvPair(value: string, flag: string): [string, string] {
  const at = value.indexOf('=');
  const name = at === -1 ? value : value.slice(0, at);
  if (at === -1 || !ENV_NAME.test(name)) {
    throw new UsageError(`${flag} takes NAME=value, e.g. ${flag} LOG_LEVEL=debug.`);
  }
  return [name, value.slice(at + 1)];
}

/** `Name: value`. The value is never echoed: it is often a token. */
function parseHeader(value: string, flag: string): [string, string] {
  const at = value.indexOf(':');
  const name = at === -1 ? '' : value.slice(0, at).trim();
  if (!HEADER_NAME.test(name)) {
    throw new UsageError(`${flag} takes 'Name: value', e.g. ${flag} 'Authorization: Bearer <token>'.`);
  }
  const headerValue = value.slice(at + 1).trim();
  if (/[\r\n\0]/.test(headerValue)) throw new UsageError(`${flag} ${name}: the value may not contain line breaks.`);
  return [name, headerValue];
}

function parseUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--url must be an http(s) URL, e.g. http://127.0.0.1:9527/mcp; got '${text}'.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`--url must be an http(s) URL; got a ${url.protocol} URL.`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(
      '--url may not carry a user or password (it would be shown and stored).',
      "Send credentials as a header: --header 'Authorization: Bearer <token>'.",
    );
  }
  return url;
}

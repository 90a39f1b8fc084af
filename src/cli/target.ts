import type { HttpServerAddress, StdioServerCommand } from '../mcp/client.js';
import type { GlobalOptions } from './global-flags.js';
import { splitCommandLine } from './server-command.js';
import { SERVER_NAME } from './servers/names.js';
import { parseEnvFlags, parseHeaderFlags } from './servers/pairs.js';
import type { ServerSpec } from './tool-cache.js';
import { UsageError } from './usage-error.js';

/** The server a CLI run talks to: its own (in-process), or another one over stdio or HTTP. */
export type Target =
  | { kind: 'built-in' }
  | { kind: 'stdio'; spec: ServerSpec; command: StdioServerCommand }
  | { kind: 'http'; spec: ServerSpec; address: HttpServerAddress };

/**
 * Where `--server`, `--url`, `--env` and `--header` point. `--server <word>` is a named server
 * when `wallet servers` knows that name, else a command line; `--env` and `--header` add to (and
 * override) a named server's own.
 */
export async function resolveTarget(globals: GlobalOptions, dataDir: string, env: NodeJS.ProcessEnv): Promise<Target> {
  // The same parsers as `wallet servers add`, so a flag means the same on both.
  const extraEnv = parseEnvFlags(globals.env);
  const extraHeaders = parseHeaderFlags(globals.headers);
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
    // servers.json's parser is loaded only when a name may be in it.
    const { loadServers, resolveNamedServer } = await import('./servers/config.js');
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

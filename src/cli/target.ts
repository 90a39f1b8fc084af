import type { HttpServerAddress, StdioServerCommand } from '../mcp/client.js';
import type { GlobalOptions } from './global-flags.js';
import type { CliIo } from './io.js';
import { readSecretFile } from './secrets.js';
import { splitCommandLine } from './servers/command-line.js';
import { expandReferences, hasReference, MissingVariableError } from './servers/expand.js';
import { SERVER_NAME } from './servers/names.js';
import { parseEnvFlags, parseHeaderFlags, SECRET_NAME } from './servers/pairs.js';
import type { ServerSpec } from './tool-cache.js';
import { UsageError } from './usage-error.js';

/** The server a CLI run talks to: its own (in-process), or another one over stdio or HTTP. */
export type Target =
  | { kind: 'built-in' }
  | {
      kind: 'stdio';
      spec: ServerSpec;
      command: StdioServerCommand;
      /** The name of the saved server (servers.json) it runs, if it is one; none for a command line. */
      saved?: string;
    }
  | { kind: 'http'; spec: ServerSpec; address: HttpServerAddress };

/**
 * Where `--server`, `--url`, `--env`, `--header` and `--header-file` point. `--server <word>` is a
 * named server when `wallet servers` knows that name, else a command line; `--env` and the headers
 * add to (and override) a named server's own.
 */
export async function resolveTarget(globals: GlobalOptions, dataDir: string, io: CliIo): Promise<Target> {
  const env = io.env;
  // The same parsers as `wallet servers add`, so a flag means the same on both.
  const extraEnv = parseEnvFlags(globals.env);
  const headersGiven = globals.headers.length > 0 || globals.headerFile !== undefined;
  if (globals.server !== undefined && globals.url !== undefined) {
    throw new UsageError('Give --server or --url, not both.');
  }
  if (globals.url !== undefined) {
    if (globals.env.length > 0)
      throw new UsageError('--env sets the environment of a --server command; not with --url.');
    const url = parseUrl(globals.url);
    return {
      kind: 'http',
      spec: { kind: 'url', value: globals.url },
      address: {
        url,
        headers: await headersFromFlags(globals, io),
        oauth: await oauthLogin(io, dataDir, `'wallet servers login --url ${url.href}'`),
      },
    };
  }
  if (globals.server === undefined) {
    if (globals.env.length > 0 || headersGiven) {
      throw new UsageError(
        '--env, --header and --header-file are for another server (--server or --url), not the built-in one.',
      );
    }
    return { kind: 'built-in' };
  }
  const spec: ServerSpec = { kind: 'server', value: globals.server };
  if (SERVER_NAME.test(globals.server)) {
    // servers.json's parser is loaded only when a name may be in it.
    const { loadServers, resolveNamedServer } = await import('./servers/config.js');
    const servers = await loadServers(dataDir);
    if (Object.hasOwn(servers, globals.server)) {
      const named = resolveNamedServer(servers, globals.server, env);
      if (named.kind === 'http') {
        if (globals.env.length > 0) throw new UsageError(`--env: server '${globals.server}' is reached over HTTP.`);
        return {
          kind: 'http',
          spec,
          address: {
            url: parseUrl(named.url),
            headers: { ...named.headers, ...(await headersFromFlags(globals, io)) },
            oauth: await oauthLogin(io, dataDir, `'wallet servers login ${globals.server}'`),
          },
        };
      }
      if (headersGiven) throw new UsageError(`--header: server '${globals.server}' is a command (stdio).`);
      return stdioTarget(globals.server, extraEnv, named);
    }
  }
  if (headersGiven) throw new UsageError('--header is for --url (HTTP); --server runs a command.');
  return stdioTarget(globals.server, extraEnv);
}

export type StdioTarget = Extract<Target, { kind: 'stdio' }>;

/**
 * `--server <value>` as a command: the named server's (`named`, resolved) or the command line
 * itself, with `--env`'s variables (`extraEnv`) over its own. Shared with the spawn `bin/wallet.js`
 * makes before the CLI loads (src/startup/ahead.ts), so that both resolve the same command.
 */
export function stdioTarget(
  server: string,
  extraEnv: Readonly<Record<string, string>>,
  named?: { command: string; args: string[]; env: Record<string, string> },
): StdioTarget {
  const spec: ServerSpec = { kind: 'server', value: server };
  const command = named
    ? { command: named.command, args: named.args, env: { ...named.env, ...extraEnv } }
    : { ...splitCommandLine(server), env: { ...extraEnv } };
  return { kind: 'stdio', spec, command: { ...command, stderr: 'capture' }, ...(named ? { saved: server } : {}) };
}

/** The stored OAuth login of an HTTP server, and how to start one (`src/cli/browser.ts`). */
async function oauthLogin(io: CliIo, dataDir: string, loginCommand: string): Promise<HttpServerAddress['oauth']> {
  const { loginPrompt } = await import('./browser.js');
  return { dataDir, prompt: loginPrompt(io, loginCommand) };
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
      "Send credentials as a header: --header 'Authorization: Bearer ${TOKEN}' (single quotes), or --header-file.",
    );
  }
  return url;
}

/**
 * The headers of `--header-file` (an owner-only file, one `Name: value` a line, taken as written)
 * and of `--header` (`${VAR}` read from the environment, as servers.json does), a name given in
 * both refused. A credential typed on the command line is visible to every local user in `ps` and
 * kept in the shell history: it is used, with a warning.
 */
async function headersFromFlags(
  globals: GlobalOptions,
  io: Pick<CliIo, 'env' | 'stderr'>,
): Promise<Record<string, string>> {
  const fromFile =
    globals.headerFile === undefined
      ? {}
      : parseHeaderFlags(
          (await readSecretFile(globals.headerFile, '--header-file'))
            .split(/\r?\n/)
            .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#')),
          `--header-file ${globals.headerFile}:`,
        );
  const given = parseHeaderFlags(globals.headers);
  const fileNames = new Set(Object.keys(fromFile).map((name) => name.toLowerCase()));
  const headers: Record<string, string> = { ...fromFile };
  for (const [name, value] of Object.entries(given)) {
    if (fileNames.has(name.toLowerCase())) throw new UsageError(`--header ${name} is also in --header-file.`);
    if (SECRET_NAME.test(name) && !hasReference(value)) {
      io.stderr.write(
        `warning: --header ${name} is typed on the command line, where other users of this machine see it (ps) ` +
          `and your shell history keeps it. Use --header '${name}: Bearer \${TOKEN}' in single quotes ` +
          '(read from the environment) or --header-file <owner-only file>.\n',
      );
    }
    headers[name] = expandHeader(name, value, io.env);
  }
  return headers;
}

function expandHeader(name: string, value: string, env: Readonly<Record<string, string | undefined>>): string {
  try {
    return expandReferences(value, env);
  } catch (error) {
    if (!(error instanceof MissingVariableError)) throw error;
    throw new UsageError(
      `--header ${name} says \${${error.variable}}, and the environment variable ${error.variable} is not set.`,
      `Set it, e.g. export ${error.variable}=…, or write \${${error.variable}:-default}.`,
    );
  }
}

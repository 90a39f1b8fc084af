import { repeatedValues } from '../global-flags.js';
import { EXIT, UsageError } from '../usage-error.js';
import { splitCommandLine } from './command-line.js';
import {
  isHttpEntry,
  serversFilePath,
  SERVER_NAME,
  SERVER_NAME_RULE,
  updateServers,
  urlCarriesCredentials,
  urlProblem,
  unknownServer,
  type ServerEntry,
} from './config.js';
import { summarizeServer } from './describe.js';
import { hasReference } from './expand.js';
import { parseEnvFlags, parseHeaderFlags, SECRET_NAME } from './pairs.js';
import { noMoreWords, single, type ServersRun } from './run.js';

/** `wallet servers add <name> --server … | --url …`: saves one server, refusing a saved name unless --overwrite. */
export async function addServer({ words, parsed, io, dataDir, json }: ServersRun): Promise<number> {
  const [name, ...extra] = words;
  if (name === undefined) {
    throw new UsageError(
      'servers add needs a name.',
      "e.g. wallet servers add everything --server 'npx -y @modelcontextprotocol/server-everything'",
    );
  }
  noMoreWords(extra, 'servers add <name>');
  checkName(name);
  const keepAlive = typeof parsed['keep-alive'] === 'boolean' ? parsed['keep-alive'] : undefined;
  if (keepAlive !== undefined && single(parsed, 'server') === undefined && single(parsed, 'url') === undefined) {
    return setKeepAlive({ words, parsed, io, dataDir, json } as ServersRun, name, keepAlive);
  }
  const entry = { ...entryFromFlags(parsed), ...(keepAlive === true ? { keep_alive: true } : {}) };
  const replaced = await updateServers(dataDir, (servers) => {
    const saved = Object.hasOwn(servers, name);
    if (saved && parsed['overwrite'] !== true) {
      throw new UsageError(
        `A server named '${name}' is already saved.`,
        'Add --overwrite to replace it, or pick another name.',
      );
    }
    return { servers: { ...servers, [name]: entry }, result: saved };
  });
  for (const note of inlineSecretNotes(entry)) io.stderr.write(`note: ${note}\n`);
  const summary = summarizeServer(name, entry);
  if (json)
    io.stdout.write(JSON.stringify({ added: summary, replaced, file: serversFilePath(dataDir) }, null, 2) + '\n');
  else
    io.stdout.write(
      `${replaced ? 'Replaced' : 'Added'} '${name}' (${summary.transport}); use it with: wallet --server ${name} <command>\n`,
    );
  return EXIT.ok;
}

/**
 * `wallet servers add <name> --keep-alive` (or `--no-keep-alive`) alone: a saved server's calls
 * go through the daemon (or no longer do), the rest of it as it was.
 */
async function setKeepAlive({ parsed, io, dataDir, json }: ServersRun, name: string, on: boolean): Promise<number> {
  if (
    parsed['overwrite'] === true ||
    repeatedValues(parsed, 'env').length > 0 ||
    repeatedValues(parsed, 'header').length > 0
  ) {
    throw new UsageError(
      '--keep-alive alone changes a saved server; with --env, --header or --overwrite, give --server or --url too.',
    );
  }
  await updateServers(dataDir, (servers) => {
    const saved = Object.hasOwn(servers, name) ? servers[name] : undefined;
    if (saved === undefined) throw unknownServer(servers, name);
    const { keep_alive: _was, ...rest } = saved;
    return { servers: { ...servers, [name]: on ? { ...rest, keep_alive: true } : rest }, result: undefined };
  });
  if (json)
    io.stdout.write(JSON.stringify({ server: name, keepAlive: on, file: serversFilePath(dataDir) }, null, 2) + '\n');
  else
    io.stdout.write(
      on
        ? `'${name}' is kept alive: its calls go through the daemon ('wallet daemon status').\n`
        : `'${name}' is no longer kept alive: each call starts it.\n`,
    );
  return EXIT.ok;
}

/** `--server` with `--env`, or `--url` with `--header`: one server entry, checked. */
function entryFromFlags(parsed: Readonly<Record<string, unknown>>): ServerEntry {
  const server = single(parsed, 'server');
  const url = single(parsed, 'url');
  const env = repeatedValues(parsed, 'env');
  const headers = repeatedValues(parsed, 'header');
  if ((server === undefined) === (url === undefined)) {
    throw new UsageError('servers add takes --server "<command line>" (stdio) or --url <url> (HTTP), one of them.');
  }
  if (server !== undefined) {
    if (headers.length > 0)
      throw new UsageError('--header is for an HTTP server (--url); a --server command takes --env.');
    const { command, args } = splitCommandLine(server);
    const parsedEnv = parseEnvFlags(env);
    return { command, args, ...(Object.keys(parsedEnv).length > 0 ? { env: parsedEnv } : {}) };
  }
  const address = url ?? '';
  if (env.length > 0) throw new UsageError('--env is for a --server command; an HTTP server (--url) takes --header.');
  const problem = urlProblem(address);
  if (problem) throw new UsageError(`--url: ${problem}.`, 'MCP over HTTP looks like https://example.com/mcp.');
  if (urlCarriesCredentials(address)) {
    throw new UsageError(
      '--url may not carry a user or password (it would be shown and stored); nothing was saved.',
      "Send credentials as a header: --header 'Authorization: Bearer ${TOKEN}' (single quotes).",
    );
  }
  const parsedHeaders = parseHeaderFlags(headers);
  return { url: address, ...(Object.keys(parsedHeaders).length > 0 ? { headers: parsedHeaders } : {}) };
}

/** A value that looks like a token, typed inline: it is in the shell history now. */
function inlineSecretNotes(entry: ServerEntry): string[] {
  const [kind, record] = isHttpEntry(entry) ? (['--header', entry.headers] as const) : (['--env', entry.env] as const);
  return Object.entries(record ?? {})
    .filter(([name, value]) => SECRET_NAME.test(name) && !hasReference(value))
    .map(
      ([name]) =>
        `${kind} ${name} was typed inline, so it is in your shell history. A single-quoted reference keeps it out: ` +
        (kind === '--header' ? `--header '${name}: Bearer \${TOKEN}'` : `--env '${name}=\${${name}}'`) +
        ', read from the environment when connecting.',
    );
}

function checkName(name: string): void {
  if (!SERVER_NAME.test(name)) {
    throw new UsageError(
      `'${name}' is not a server name: ${SERVER_NAME_RULE}.`,
      'e.g. github, linear-prod, my.server_2',
    );
  }
}

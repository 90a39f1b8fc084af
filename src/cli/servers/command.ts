import { homedir } from 'node:os';
import { parseFlags, type CliFlag } from '../global-flags.js';
import type { CliIo } from '../io.js';
import { colorEnabled, createStyle, renderHuman } from '../render.js';
import { closestNames } from '../suggest.js';
import { rejectUnknownFlags } from '../unknown-flags.js';
import { EXIT, UsageError } from '../usage-error.js';
import { addServer } from './add-command.js';
import { AGENTS, type AgentConfigContext } from './agent-configs.js';
import { loadServers, serversFilePath, unknownServer, updateServers } from './config.js';
import { summarizeServer, summaryRow } from './describe.js';
import { SERVERS_HELP } from './help.js';
import { importServers } from './import-command.js';
import { noMoreWords, type ServersRun } from './run.js';

/** The subcommands of `wallet servers`, for help and completion. */
export const SERVERS_SUBCOMMANDS = ['list', 'add', 'remove', 'import', 'login', 'logout'] as const;
type Subcommand = (typeof SERVERS_SUBCOMMANDS)[number];

/** Every flag `wallet servers …` takes (each subcommand accepts a part of them). */
export const SERVERS_FLAGS: readonly CliFlag[] = [
  {
    name: 'server',
    type: 'string',
    value: 'command line',
    description: 'add: the command that starts a stdio server.',
  },
  { name: 'env', type: 'array', value: 'NAME=value', description: 'add: an environment variable for that command.' },
  {
    name: 'url',
    type: 'string',
    value: 'url',
    description: 'add, login, logout: the Streamable HTTP endpoint (http or https).',
  },
  { name: 'header', type: 'array', value: 'Name: value', description: 'add: an HTTP header for that URL.' },
  { name: 'overwrite', type: 'boolean', description: 'add, import: replace a saved server of the same name.' },
  { name: 'keep-alive', type: 'boolean', description: 'add: keep the server running between calls (the daemon).' },
  { name: 'from', type: 'string', value: 'agent', choices: AGENTS, description: "import: only this agent's files." },
  { name: 'scope', type: 'string', value: 'scopes', description: 'login: the OAuth scopes to ask for.' },
  { name: 'client-id', type: 'string', value: 'id', description: 'login: a client registered beforehand.' },
  {
    name: 'client-secret-file',
    type: 'string',
    value: 'path',
    description: "login: that client's secret, from an owner-only file.",
  },
  { name: 'client-secret-stdin', type: 'boolean', description: "login: that client's secret, from stdin." },
  {
    name: 'client-key-file',
    type: 'string',
    value: 'path',
    description: "login: that client's private key (private_key_jwt), a PEM file.",
  },
  { name: 'client-credentials', type: 'boolean', description: 'login: a machine client (no browser).' },
  {
    name: 'client-assertion-file',
    type: 'string',
    value: 'path',
    description: "login: a workload identity token (JWT) file, the client's grant.",
  },
  {
    name: 'id-token-file',
    type: 'string',
    value: 'path',
    description: 'login: an enterprise ID token (JWT) file, exchanged for the grant.',
  },
  { name: 'idp-issuer', type: 'string', value: 'url', description: 'login: the identity provider of that ID token.' },
  {
    name: 'idp-token-endpoint',
    type: 'string',
    value: 'url',
    description: "login: that identity provider's token endpoint.",
  },
  { name: 'idp-client-id', type: 'string', value: 'id', description: "login: this client's id at that provider." },
  {
    name: 'idp-client-secret-file',
    type: 'string',
    value: 'path',
    description: "login: this client's secret there, an owner-only file.",
  },
  {
    name: 'client-metadata-url',
    type: 'string',
    value: 'https url',
    description: 'login: a client metadata document to use as client id.',
  },
  { name: 'browser', type: 'boolean', description: 'login: open a browser (--no-browser: print the URL).' },
  { name: 'json', type: 'boolean', description: 'Print the result as JSON.' },
  { name: 'color', type: 'boolean', description: 'Colour the output on a terminal.' },
  { name: 'debug', type: 'boolean', description: 'Show error causes and stack traces.' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'Show help.' },
];

const ALWAYS = ['json', 'color', 'debug', 'help'];
/** The flags each subcommand takes (completion offers exactly these). */
export const SERVERS_FLAGS_OF: Readonly<Record<Subcommand, readonly string[]>> = {
  list: ALWAYS,
  add: [...ALWAYS, 'server', 'env', 'url', 'header', 'overwrite', 'keep-alive'],
  remove: ALWAYS,
  import: [...ALWAYS, 'from', 'overwrite'],
  login: [
    ...ALWAYS,
    'url',
    'scope',
    'client-id',
    'client-secret-file',
    'client-secret-stdin',
    'client-key-file',
    'client-credentials',
    'client-assertion-file',
    'id-token-file',
    'idp-issuer',
    'idp-token-endpoint',
    'idp-client-id',
    'idp-client-secret-file',
    'client-metadata-url',
    'browser',
  ],
  logout: [...ALWAYS, 'url'],
};

/**
 * `wallet servers …`: list, add, remove and import named MCP servers; log in to and out of them. `argv` is the whole command
 * line; the subcommand is the word after `servers`. Returns the exit code; usage problems
 * (bad names, flags or files) are thrown as UsageError, and nothing is written then.
 *
 * @example
 * await runServers(['servers', 'add', 'gh', '--server', 'gh-mcp'], processIo(), resolveDataDir())
 */
export async function runServers(
  argv: readonly string[],
  io: CliIo,
  dataDir: string,
  where: Partial<AgentConfigContext> = {},
): Promise<number> {
  const parsed = parseFlags(argv, SERVERS_FLAGS);
  if (parsed['help'] === true) {
    io.stdout.write(SERVERS_HELP);
    return EXIT.ok;
  }
  const positionals = ((parsed['_'] as unknown[] | undefined) ?? []).map(String);
  const [word = 'list', ...words] = positionals.slice(positionals.indexOf('servers') + 1);
  if (word === 'help') {
    io.stdout.write(SERVERS_HELP);
    return EXIT.ok;
  }
  const subcommand = SERVERS_SUBCOMMANDS.find((candidate) => candidate === word);
  if (subcommand === undefined) {
    const near = closestNames(word, SERVERS_SUBCOMMANDS);
    throw new UsageError(
      `Unknown subcommand 'servers ${word}'.`,
      near.length > 0 ? `Did you mean 'servers ${near.join("' or 'servers ")}'?` : "See 'wallet servers --help'.",
    );
  }
  const allowed = SERVERS_FLAGS_OF[subcommand];
  rejectUnknownFlags(
    { ...parsed, _: [] },
    SERVERS_FLAGS.filter((flag) => allowed.includes(flag.name)),
    `servers ${subcommand}`,
  );
  const color = colorEnabled(typeof parsed['color'] === 'boolean' ? parsed['color'] : undefined, io);
  const run: ServersRun = {
    words,
    parsed,
    io,
    dataDir,
    style: await createStyle(color),
    json: parsed['json'] === true,
  };
  const context: AgentConfigContext = {
    home: where.home ?? homedir(),
    cwd: where.cwd ?? process.cwd(),
    platform: where.platform ?? process.platform,
    env: where.env ?? io.env,
  };
  switch (subcommand) {
    case 'list':
      return listServers(run);
    case 'add':
      return addServer(run);
    case 'remove':
      return removeServer(run);
    case 'import':
      return importServers(run, context);
    case 'login':
      return (await import('./login-command.js')).loginServer(run);
    case 'logout':
      return (await import('./login-command.js')).logoutServer(run);
  }
}

async function listServers({ words, io, dataDir, style, json }: ServersRun): Promise<number> {
  noMoreWords(words, 'servers list');
  const servers = await loadServers(dataDir);
  const summaries = Object.entries(servers).map(([name, entry]) => summarizeServer(name, entry));
  if (json) {
    io.stdout.write(JSON.stringify({ file: serversFilePath(dataDir), servers: summaries }, null, 2) + '\n');
  } else if (summaries.length === 0) {
    io.stderr.write("No named servers yet: add one with 'wallet servers add', or 'wallet servers import'.\n");
  } else {
    io.stdout.write(renderHuman(summaries.map(summaryRow), style));
  }
  return EXIT.ok;
}

async function removeServer({ words, io, dataDir, json }: ServersRun): Promise<number> {
  const [name, ...extra] = words;
  if (name === undefined)
    throw new UsageError('servers remove needs the name of a server.', "See 'wallet servers list'.");
  noMoreWords(extra, 'servers remove <name>');
  await updateServers(dataDir, (servers) => {
    if (!Object.hasOwn(servers, name)) throw unknownServer(servers, name);
    const { [name]: _removed, ...rest } = servers;
    return { servers: rest, result: undefined };
  });
  if (json) io.stdout.write(JSON.stringify({ removed: name, file: serversFilePath(dataDir) }, null, 2) + '\n');
  else io.stdout.write(`Removed '${name}'.\n`);
  return EXIT.ok;
}

import { GLOBAL_FLAGS } from '../global-flags.js';
import { CLI_VERBS, TOOLS_FLAGS } from '../help.js';
import { RESOURCE_FLAGS } from '../resources.js';
import { SERVE_FLAGS } from '../serve.js';
import { TASKS_SUBCOMMANDS, TASKS_SUMMARIES } from '../tasks.js';
import { SERVERS_FLAGS, SERVERS_FLAGS_OF, SERVERS_SUBCOMMANDS } from '../servers/command.js';
import { CLIENT_NAMES, SETUP_CLIENTS, SETUP_FLAGS } from '../setup/command.js';
import { APPROVALS_FLAGS, APPROVALS_SUBCOMMANDS, APPROVALS_SUMMARIES } from '../approvals.js';
import { STATE_FLAGS, STATE_SUBCOMMANDS, STATE_SUMMARIES } from '../state.js';
import { DAEMON_FLAGS, DAEMON_SUBCOMMANDS, DAEMON_SUMMARIES } from '../daemon/command.js';
import {
  CONFIG_FLAGS,
  CONFIG_SUBCOMMANDS,
  CONFIG_SUMMARIES,
  NETWORKS_FLAGS,
  NETWORKS_SUBCOMMANDS,
  NETWORKS_SUMMARIES,
} from '../config.js';
import { cliFlagCompletions, COMPLETION_SHELLS, type CompletionCommand, type CompletionFlag } from './model.js';
import { renderTable } from './table.js';

/** The global flags, valid before the command and after every command that takes them. */
function globalCompletionFlags(): CompletionFlag[] {
  return GLOBAL_FLAGS.flatMap(cliFlagCompletions);
}

/** A verb's own entry takes its summary from CLI_VERBS; its subcommands bring theirs. */
type VerbShape = Omit<CompletionCommand, 'summary'> & { summary?: string };

type ServersSubcommand = (typeof SERVERS_SUBCOMMANDS)[number];

const SERVERS_SUMMARIES: Readonly<Record<ServersSubcommand, string>> = {
  list: 'List the named servers',
  add: 'Name a server: a stdio command or an HTTP URL',
  remove: 'Forget a named server',
  import: 'Import the servers of agent config files',
  login: 'Log in to an HTTP server with OAuth',
  logout: "Forget an HTTP server's OAuth login",
};

/**
 * `wallet servers [<subcommand>]` parses its own flags (SERVERS_FLAGS), not the global ones: each
 * subcommand those of SERVERS_FLAGS_OF, the bare verb the ones every subcommand takes;
 * `import` reads the config files it is given.
 */
function serversShape(subcommand?: ServersSubcommand): VerbShape {
  const allowed = subcommand
    ? SERVERS_FLAGS_OF[subcommand]
    : SERVERS_SUBCOMMANDS.map((name) => SERVERS_FLAGS_OF[name]).reduce((common, names) =>
        common.filter((name) => names.includes(name)),
      );
  const flags = SERVERS_FLAGS.filter((flag) => allowed.includes(flag.name));
  return {
    path: subcommand === undefined ? ['servers'] : ['servers', subcommand],
    ...(subcommand === undefined ? {} : { summary: SERVERS_SUMMARIES[subcommand] }),
    acceptsGlobals: false,
    acceptsFiles: subcommand === 'import',
    flags: flags.flatMap(cliFlagCompletions),
  };
}

/** How each CLI verb continues: its flags and subcommands. A verb not listed takes the global flags. */
const VERB_SHAPES: Readonly<Record<string, readonly VerbShape[]>> = {
  serve: [
    { path: ['serve'], acceptsGlobals: false, acceptsFiles: false, flags: SERVE_FLAGS.flatMap(cliFlagCompletions) },
  ],
  tools: [
    { path: ['tools'], acceptsGlobals: true, acceptsFiles: false, flags: TOOLS_FLAGS.flatMap(cliFlagCompletions) },
  ],
  resource: [
    {
      path: ['resource'],
      acceptsGlobals: true,
      acceptsFiles: false,
      flags: RESOURCE_FLAGS.flatMap(cliFlagCompletions),
    },
  ],
  tasks: [
    { path: ['tasks'], acceptsGlobals: true, acceptsFiles: false, flags: [] },
    ...TASKS_SUBCOMMANDS.map((name) => ({
      path: ['tasks', name],
      summary: TASKS_SUMMARIES[name],
      acceptsGlobals: true,
      acceptsFiles: false,
      flags: [],
    })),
  ],
  setup: [
    { path: ['setup'], acceptsGlobals: false, acceptsFiles: false, flags: SETUP_FLAGS.flatMap(cliFlagCompletions) },
    ...SETUP_CLIENTS.map((client) => ({
      path: ['setup', client],
      summary: `Register the wallet with ${CLIENT_NAMES[client]}`,
      acceptsGlobals: false,
      acceptsFiles: false,
      flags: SETUP_FLAGS.flatMap(cliFlagCompletions),
    })),
  ],
  servers: [serversShape(), ...SERVERS_SUBCOMMANDS.map(serversShape)],
  approvals: [
    {
      path: ['approvals'],
      acceptsGlobals: false,
      acceptsFiles: false,
      flags: APPROVALS_FLAGS.flatMap(cliFlagCompletions),
    },
    ...APPROVALS_SUBCOMMANDS.map((name) => ({
      path: ['approvals', name],
      summary: APPROVALS_SUMMARIES[name],
      acceptsGlobals: false,
      acceptsFiles: false,
      flags: APPROVALS_FLAGS.filter(
        (flag) => (name === 'list' || flag.name !== 'all') && (name === 'open' || flag.name !== 'browser'),
      ).flatMap(cliFlagCompletions),
    })),
  ],
  config: [
    { path: ['config'], acceptsGlobals: false, acceptsFiles: false, flags: CONFIG_FLAGS.flatMap(cliFlagCompletions) },
    ...CONFIG_SUBCOMMANDS.map((name) => ({
      path: ['config', name],
      summary: CONFIG_SUMMARIES[name],
      acceptsGlobals: false,
      acceptsFiles: false,
      flags: CONFIG_FLAGS.flatMap(cliFlagCompletions),
    })),
  ],
  networks: [
    { path: ['networks'], acceptsGlobals: false, acceptsFiles: false, flags: [] },
    ...NETWORKS_SUBCOMMANDS.map((name) => ({
      path: ['networks', name],
      summary: NETWORKS_SUMMARIES[name],
      acceptsGlobals: false,
      acceptsFiles: false,
      flags: NETWORKS_FLAGS.flatMap(cliFlagCompletions),
    })),
  ],
  state: [
    { path: ['state'], acceptsGlobals: false, acceptsFiles: false, flags: STATE_FLAGS.flatMap(cliFlagCompletions) },
    ...STATE_SUBCOMMANDS.map((name) => ({
      path: ['state', name],
      summary: STATE_SUMMARIES[name],
      acceptsGlobals: false,
      acceptsFiles: false,
      flags: STATE_FLAGS.flatMap(cliFlagCompletions),
    })),
  ],
  daemon: [
    { path: ['daemon'], acceptsGlobals: false, acceptsFiles: false, flags: DAEMON_FLAGS.flatMap(cliFlagCompletions) },
    ...DAEMON_SUBCOMMANDS.map((name) => ({
      path: ['daemon', name],
      summary: DAEMON_SUMMARIES[name],
      acceptsGlobals: false,
      acceptsFiles: false,
      flags: DAEMON_FLAGS.flatMap(cliFlagCompletions),
    })),
  ],
  completion: [
    { path: ['completion'], acceptsGlobals: false, acceptsFiles: false, flags: [] },
    ...COMPLETION_SHELLS.map((shell) => ({
      path: ['completion', shell],
      summary: `The ${shell} completion script`,
      acceptsGlobals: false,
      acceptsFiles: false,
      flags: [],
    })),
  ],
};

/** The CLI's own verbs (`serve`, `tools`, `servers`, `completion`) and their subcommands. */
function verbCompletionCommands(): CompletionCommand[] {
  return CLI_VERBS.flatMap((verb) =>
    (VERB_SHAPES[verb.name] ?? [{ path: [verb.name], acceptsGlobals: true, acceptsFiles: false, flags: [] }]).map(
      (shape) => ({ ...shape, summary: shape.summary ?? verb.summary }),
    ),
  );
}

/** The table of the CLI's own verbs and global flags: the same for every server. */
export function cliTable(): string {
  return renderTable(verbCompletionCommands(), globalCompletionFlags());
}

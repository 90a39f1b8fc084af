import { accessSync, constants } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, isAbsolute, join, resolve } from 'node:path';
import { packageRoot } from '../../shared/package-info.js';
import { isProfile, PROFILES } from '../../shared/profiles.js';
import { parseFlags, type CliFlag } from '../global-flags.js';
import type { CliIo } from '../io.js';
import { checkSecretFile } from '../secrets.js';
import {
  AGENT_FORMATS,
  AGENTS,
  agentConfigFiles,
  type Agent,
  type AgentConfigContext,
} from '../servers/agent-configs.js';
import { SERVER_NAME, SERVER_NAME_RULE } from '../servers/names.js';
import { single } from '../servers/run.js';
import { closestNames } from '../suggest.js';
import { rejectUnknownFlags } from '../unknown-flags.js';
import { EXIT, UsageError } from '../usage-error.js';
import { serversOf, withEntry } from './config-edit.js';
import { unifiedDiff, withSecretsMasked } from './diff.js';
import { runsWalletServe, serveEntry } from './entry.js';
import { readConfigFile, replaceConfigFile } from './file.js';
import { SETUP_HELP } from './help.js';

/** The agents `wallet setup` registers the wallet with: those `wallet servers import` reads. */
export const SETUP_CLIENTS = AGENTS;

export const SETUP_FLAGS: readonly CliFlag[] = [
  {
    name: 'scope',
    type: 'string',
    value: 'scope',
    choices: ['user', 'project'],
    description: "The user's config (default) or this project's, where the client has both.",
  },
  { name: 'name', type: 'string', value: 'name', description: 'The server name in the config (default wallet).' },
  {
    name: 'profile',
    type: 'string',
    value: 'profile',
    choices: PROFILES,
    description: 'wallet serve --profile: how tools/list shows the tools.',
  },
  { name: 'read-only', type: 'boolean', description: 'wallet serve --read-only: only the read-only tools.' },
  {
    name: 'passphrase-file',
    type: 'string',
    value: 'path',
    description: 'wallet serve --passphrase-file: an owner-only file, written by path (never its content).',
  },
  {
    name: 'on-path',
    type: 'boolean',
    description: "Run 'wallet' as found on PATH, not this Node and this bin/wallet.js by absolute path.",
  },
  { name: 'dry-run', type: 'boolean', description: 'Print the change as a unified diff; write nothing.' },
  { name: 'remove', type: 'boolean', description: 'Take the entry out of the config.' },
  { name: 'overwrite', type: 'boolean', description: 'Replace (or remove) another server of the same name.' },
  { name: 'json', type: 'boolean', description: 'Print the outcome as JSON.' },
  { name: 'debug', type: 'boolean', description: 'Show error causes and stack traces.' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'Show help.' },
];

/** Where setup looks and what it runs: injectable, so tests use temporary folders. */
export type SetupContext = AgentConfigContext & { nodePath: string; packageRoot: string; now: () => Date };

/**
 * `wallet setup <client>`: writes the entry that runs `wallet serve` into that client's config,
 * in its format, or takes it out (`--remove`). Returns the exit code; a refusal is a UsageError
 * (exit 2) and leaves the file as it was.
 *
 * @example
 * await runSetup(['setup', 'codex', '--profile', 'compact', '--dry-run'], processIo())
 */
export async function runSetup(argv: readonly string[], io: CliIo, where: Partial<SetupContext> = {}): Promise<number> {
  const parsed = parseFlags(argv, SETUP_FLAGS);
  if (parsed['help'] === true) {
    io.stdout.write(SETUP_HELP);
    return EXIT.ok;
  }
  if (parsed['passphrase'] !== undefined || parsed['passphrase-stdin'] !== undefined) {
    throw new UsageError(
      'wallet setup never writes a passphrase into a config: the agent would keep it in plain text.',
      'Put it in an owner-only file (chmod 600) and pass --passphrase-file <path>; only the path is written.',
    );
  }
  const positionals = parsed._.map(String);
  const [client, ...extra] = positionals.slice(positionals.indexOf('setup') + 1);
  rejectUnknownFlags({ ...parsed, _: [] }, SETUP_FLAGS, 'setup');
  if (client === undefined) {
    throw new UsageError(`wallet setup needs a client: ${SETUP_CLIENTS.join(', ')}.`, "See 'wallet setup --help'.");
  }
  const agent = SETUP_CLIENTS.find((candidate) => candidate === client);
  if (agent === undefined) {
    const near = closestNames(client, SETUP_CLIENTS);
    throw new UsageError(
      `Unknown client '${client}'.`,
      near.length > 0 ? `Did you mean ${near.join(' or ')}?` : `wallet setup knows ${SETUP_CLIENTS.join(', ')}.`,
    );
  }
  if (extra.length > 0) throw new UsageError(`Unexpected argument '${extra[0]}' after 'setup ${agent}'.`);
  const context: SetupContext = {
    home: where.home ?? homedir(),
    cwd: where.cwd ?? process.cwd(),
    platform: where.platform ?? process.platform,
    env: where.env ?? io.env,
    nodePath: where.nodePath ?? process.execPath,
    packageRoot: where.packageRoot ?? packageRoot(),
    now: where.now ?? (() => new Date()),
  };
  const file = configFileOf(agent, single(parsed, 'scope'), context);
  const name = single(parsed, 'name') ?? 'wallet';
  if (!SERVER_NAME.test(name)) throw new UsageError(`--name '${name}' is not a server name: ${SERVER_NAME_RULE}.`);
  const remove = parsed['remove'] === true;
  const overwrite = parsed['overwrite'] === true;
  const format = AGENT_FORMATS[agent];

  const current = readConfigFile(file);
  const servers = await serversOf(current.text, format, file);
  const existing = Object.hasOwn(servers, name) ? servers[name] : undefined;
  const ours = existing !== undefined && runsWalletServe(existing);
  if (existing !== undefined && !ours && !overwrite) {
    throw new UsageError(
      `${file} already has a server '${name}' that does not run wallet serve; it was left as it is.`,
      `Choose another name with --name, or replace it with --overwrite.`,
    );
  }
  let text: string;
  if (remove) {
    if (remove && hasServeFlags(parsed)) throw new UsageError('--remove takes no wallet serve flags.');
    text = existing === undefined ? current.text : await withEntry(current.text, format, name, undefined, false);
  } else {
    const { command, args } = serveEntry({
      launcher: parsed['on-path'] === true ? 'path' : 'absolute',
      nodePath: context.nodePath,
      packageRoot: context.packageRoot,
      profile: profileOf(single(parsed, 'profile')),
      readOnly: parsed['read-only'] === true,
      passphraseFile: passphraseFileOf(single(parsed, 'passphrase-file'), context.cwd),
    });
    if (parsed['on-path'] === true) onPath('wallet', context);
    // The data directory this run uses, by absolute path: the agent starts the server elsewhere.
    const home = context.env['WALLET_HOME'];
    const env = home === undefined || home === '' ? {} : { env: { WALLET_HOME: resolve(context.cwd, home) } };
    const entry = { ...(format.stdioType ? { type: 'stdio' } : {}), command, args, ...env };
    text = await withEntry(current.text, format, name, entry, ours);
  }
  const changed = text !== current.text;
  const action = !changed ? 'unchanged' : remove ? 'removed' : existing === undefined ? 'added' : 'updated';
  const dryRun = parsed['dry-run'] === true;
  // A link (a project's config kept elsewhere) is followed: what is written is named.
  const linked = current.path !== file ? current.path : undefined;
  const written = linked === undefined ? file : `${file} (a link to ${linked})`;
  const backup = changed && !dryRun ? replaceConfigFile(current, text, context.now()) : undefined;
  if (parsed['json'] === true) {
    io.stdout.write(
      JSON.stringify(
        {
          client: agent,
          file,
          ...(linked === undefined ? {} : { link_target: linked }),
          name,
          action,
          dry_run: dryRun,
          ...(backup === undefined ? {} : { backup }),
          ...(dryRun ? { diff: withSecretsMasked(unifiedDiff(current.text, text, file, `${file} (after)`)) } : {}),
        },
        null,
        2,
      ) + '\n',
    );
    return EXIT.ok;
  }
  if (!changed) {
    io.stdout.write(
      remove && existing === undefined
        ? `${written} has no server '${name}'; nothing to remove.\n`
        : `${written} already has '${name}' as asked; nothing changed.\n`,
    );
  } else if (dryRun) {
    io.stdout.write(withSecretsMasked(unifiedDiff(current.text, text, file, `${file} (after)`)));
    io.stderr.write(`Dry run: this would ${DRY_RUN_VERBS[action]} '${name}' in ${written}; nothing was written.\n`);
  } else {
    io.stdout.write(`${capitalized(action)} '${name}' in ${written}.\n`);
    if (backup !== undefined) io.stderr.write(`The file as it was: ${backup}\n`);
    io.stderr.write(`Restart ${CLIENT_NAMES[agent]} (or reload its MCP servers) to ${remove ? 'drop' : 'start'} it.\n`);
  }
  return EXIT.ok;
}

/** Each client as its makers name it, for messages and completion. */
export const CLIENT_NAMES: Readonly<Record<Agent, string>> = {
  'claude-desktop': 'Claude Desktop',
  'claude-code': 'Claude Code',
  cursor: 'Cursor',
  vscode: 'VS Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
};

const DRY_RUN_VERBS: Readonly<Record<string, string>> = { added: 'add', updated: 'update', removed: 'remove' };

function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

function hasServeFlags(parsed: Readonly<Record<string, unknown>>): boolean {
  return ['profile', 'read-only', 'passphrase-file', 'on-path'].some((flag) => parsed[flag] !== undefined);
}

/** The client's file of the scope asked for: the user's unless --scope project. */
function configFileOf(agent: Agent, scope: string | undefined, context: AgentConfigContext): string {
  if (scope !== undefined && scope !== 'user' && scope !== 'project') {
    throw new UsageError(`--scope must be user or project; got '${scope}'.`);
  }
  const files = agentConfigFiles(context, agent);
  const file = files.find((candidate) => candidate.scope === (scope ?? 'user'));
  if (file === undefined) {
    throw new UsageError(
      `${CLIENT_NAMES[agent]} has no ${scope ?? 'user'} config; it reads ${files.map((candidate) => candidate.path).join(', ')}.`,
      `Leave out --scope: wallet setup ${agent}.`,
    );
  }
  return file.path;
}

function profileOf(profile: string | undefined): (typeof PROFILES)[number] | undefined {
  if (profile !== undefined && !isProfile(profile)) {
    throw new UsageError(`--profile must be one of ${PROFILES.join(', ')}; got '${profile}'.`);
  }
  return profile;
}

/** The passphrase file by absolute path (an agent starts the server in a folder of its own), checked owner-only. */
function passphraseFileOf(given: string | undefined, cwd: string): string | undefined {
  if (given === undefined) return undefined;
  const path = isAbsolute(given) ? given : resolve(cwd, given);
  checkSecretFile(path, '--passphrase-file');
  return path;
}

/** Refuses --on-path when no `wallet` is there: the agent would fail to start it, silently. */
function onPath(command: string, context: SetupContext): void {
  const names =
    context.platform === 'win32'
      ? (context.env['PATHEXT'] ?? '.EXE;.CMD').split(';').map((ext) => command + ext.toLowerCase())
      : [command];
  for (const dir of (context.env['PATH'] ?? '').split(delimiter).filter(Boolean)) {
    for (const name of names) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return;
      } catch {
        // Not in this folder.
      }
    }
  }
  throw new UsageError(
    "--on-path: no 'wallet' on PATH here, so the agent could not start it.",
    'Run npm link (or install the package globally) first, or leave out --on-path to write absolute paths.',
  );
}

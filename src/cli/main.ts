import type { ListedTool } from '../mcp/session.js';
import type { PayerSetup } from '../mcp/x402-payer.js';
import { inDialect, toolDefinitionDocument, type FunctionDialect } from '../shared/function-catalogue.js';
import { packageInfo } from '../shared/package-info.js';
import { fullDescriptionOf } from '../shared/protocol-meta.js';
import { activityOn, type Activity } from './activity.js';
import { flagsOfCommand, toolCommands } from './commands.js';
import { Connection, startServerAhead, type SpawnedAhead, type ToolList, type WarmSessions } from './connection.js';
import { readCommandLine } from './command-line.js';
import { privateDataDir } from './data-dir-check.js';
import { reportFailure } from './failure.js';
import {
  callsTool,
  GLOBAL_FLAGS,
  parseFlags,
  refuseBuiltInFlags,
  type GlobalOptions,
  type ParsedFlags,
} from './global-flags.js';
import { CLI_VERBS, renderCommandHelp, renderRootHelp, TOOLS_FLAGS, type ToolCommand } from './help.js';
import { processIo, type CliIo } from './io.js';
import { colorEnabled, createStyle, renderHuman, terminalSafe, type Style } from './render.js';
import { flagsFromSchema, type FlagSpec } from './schema-flags.js';
import {
  passphrasePrompt,
  PromptInterrupted,
  readSecretFile,
  readSecretStdin,
  type PassphrasePrompt,
} from './secrets.js';
import { closestNames } from './suggest.js';
import { resolveTarget, type Target } from './target.js';
import { rejectUnknownFlags } from './unknown-flags.js';
import { EXIT, UsageError } from './usage-error.js';

// Start-up is part of every command, so what only some commands need (the MCP SDK and the
// server, `serve`, `servers`, completion scripts, the spinner) is imported where it is used.
// docs/PERFORMANCE.md has the figures.

/** Whether a tool call is still running: bin/wallet.js asks before it ends a done command's process. */
export { toolCallsRunning } from '../shared/calls-running.js';

/**
 * The whole CLI: parses argv, connects to the built-in server in-process (or to another server
 * over stdio or HTTP), turns its tools into commands, runs one, and returns the exit code.
 * Importable, so tests run it in-process with fake streams.
 */
export async function runCli(
  argv: readonly string[],
  io: CliIo = processIo(),
  options: RunOptions = {},
): Promise<number> {
  let debug = argv.includes('--debug');
  let completionValuesOf: string | undefined;
  // Until startServerAhead takes it over (adopts or ends it), a server spawned ahead is this run's to end.
  let spawnedAhead = options.spawnedAhead;
  try {
    const { globals, verb } = options.commandLine ?? readCommandLine(argv);
    debug = globals.debug;
    // bin/wallet.js runs `wallet serve …` from its own bundle (serve-main.ts), the same way.
    if (verb === 'serve') return await (await import('./serve.js')).runServe(argv, io);
    if (globals.version && verb === undefined) {
      io.stdout.write(`${packageInfo().version}\n`);
      return EXIT.ok;
    }
    const dataDir = privateDataDir(io);
    if (!globals.help) completionValuesOf = dataDir;
    if (verb === 'setup') return await (await import('./setup/command.js')).runSetup(argv, io);
    if (verb === 'servers') return await (await import('./servers/command.js')).runServers(argv, io, dataDir);
    if (verb === 'approvals') return await (await import('./approvals.js')).runApprovals(argv, io, dataDir);
    if (verb === 'config') return await (await import('./config.js')).runConfig(argv, io, dataDir);
    if (verb === 'state') return await (await import('./state.js')).runState(argv, io, dataDir);
    if (verb === 'networks') return await (await import('./config.js')).runNetworks(argv, io, dataDir);
    if (verb === 'daemon') return await (await import('./daemon/command.js')).runDaemonVerb(argv, io, dataDir);
    const calls = callsTool(globals, verb);
    // A tool call is a short process: zod builds every schema from here on (the SDK's included)
    // without a compiled fast path. zod takes the setting as each schema is built, so before any is.
    // Not in the kept-alive servers' daemon (`options.warm`), a long-lived process: there the fast paths pay off.
    if (calls && !options.warm) (await import('../shared/one-shot.js')).tuneForOneShotProcess();
    const target = callersServer(await resolveTarget(globals, dataDir, io), io, options.warm);
    if (target.kind !== 'built-in') refuseBuiltInFlags(globals);
    else if (globals.payment) throw new UsageError("--pay-from pays another server's tool: with --server or --url.");
    // Anything but a tool call would read the passphrase for nothing and pay nothing: say so.
    if (globals.payment && !calls && !globals.help) {
      throw new UsageError(
        `--pay-from pays a tool call; ${verb === undefined || globals.getToolDefinition ? 'this command calls no tool' : `'${verb}' calls no tool`}.`,
      );
    }
    const libraryNotes = globals.debug
      ? (text: string) => io.stderr.write(`debug: ${terminalSafe(text)}\n`)
      : undefined;
    // A tool call connects whatever the cache holds (see dispatch): a server spoken to before
    // starts now, while the CLI sets the rest up, unless bin/wallet.js started it even sooner
    // (`spawnedAhead`: startServerAhead adopts it, or ends it if it is not this run's server).
    // In the kept-alive servers' daemon (`options.warm`), the server runs already.
    const early =
      calls && !options.warm ? await startServerAhead(target, dataDir, libraryNotes, spawnedAhead) : undefined;
    // Taken over (adopted into `early`, or ended) once startServerAhead returns; else ended below.
    if (calls) spawnedAhead = undefined;
    let connection: Connection | undefined;
    let activity: Activity | undefined;
    try {
      const style = await createStyle(colorEnabled(globals.color, io));
      activity = await activityOn(io.stderr);
      const builtIn = target.kind === 'built-in' ? await builtInSetup(globals, io, activity) : undefined;
      // --pay-from: the wallet's own services pay another server's tool, unlocked as the built-in server is.
      const payer = !builtIn && globals.payment ? await builtInSetup(globals, io, activity) : undefined;
      if (builtIn && globals.acceptDefaults)
        throw new UsageError('--accept-defaults answers another server; not without --server or --url.');
      const questions = builtIn
        ? undefined
        : (await import('./questions.js')).questionAnswerer(
            options.questionsIo ?? io,
            activity,
            globals.acceptDefaults,
          );
      connection = new Connection(
        target,
        dataDir,
        globals.timeoutMs,
        builtIn?.setup,
        questions,
        libraryNotes,
        early,
        options.warm,
        (line) => io.stderr.write(`wallet: ${line}\n`),
      );
      const interrupted = (): boolean => (builtIn ?? payer)?.interrupted() ?? false;
      const code = await dispatch({
        argv,
        io,
        globals,
        verb,
        connection,
        style,
        activity,
        interrupted,
        payer: payer?.setup,
        warm: options.warm !== undefined,
      });
      if (interrupted()) throw new PromptInterrupted();
      return code;
    } finally {
      activity?.stop();
      if (connection) await connection.close();
      else early?.process.stop();
    }
  } catch (error) {
    return reportFailure(error, io, debug);
  } finally {
    spawnedAhead?.process.stop();
    // After the command (not help), so a network, account or server it added completes at the next TAB.
    // In the kept-alive servers' daemon, left to it (`completionValues`): the caller waits for none of it.
    if (completionValuesOf !== undefined) {
      if (options.completionValues) options.completionValues(completionValuesOf);
      else await (await import('./completion/refresh-values.js')).refreshCompletionValues(completionValuesOf);
    }
  }
}

/**
 * In the kept-alive servers' daemon (`warm`), a stdio server is spawned with the caller's
 * environment under its own variables, as a direct call spawns it, not with the daemon's (which
 * keeps none of its callers'); the pool keys sessions by it, so that a caller never reaches a
 * server started with another environment (another account, token, profile).
 */
function callersServer(target: Target, io: CliIo, warm: WarmSessions | undefined): Target {
  if (!warm || target.kind !== 'stdio') return target;
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(io.env)) if (value !== undefined) env[name] = value;
  return { ...target, command: { ...target.command, env: Object.assign(env, target.command.env) } };
}

export type RunOptions = {
  /** The server `bin/wallet.js` spawned before it loaded the CLI (`src/startup/ahead.ts`), if it did. */
  spawnedAhead?: SpawnedAhead | undefined;
  /** In the kept-alive servers' daemon (src/cli/daemon/server.ts): its open sessions, which this run borrows. */
  warm?: WarmSessions | undefined;
  /**
   * In the daemon: where a server's questions (elicitation) are asked, the caller's terminal
   * relayed (its own stdin stays unread: a run that would read it is handed back to the caller).
   */
  questionsIo?: CliIo | undefined;
  /**
   * In the daemon: who brings the completion values of `dataDir` up to date, once the caller has
   * its answer (src/cli/daemon/completion-values.ts); by default the run does, as it ends.
   */
  completionValues?: ((dataDir: string) => void) | undefined;
  /** In the daemon: `readCommandLine(argv)`, which it read already to know the call is its own. */
  commandLine?: ReturnType<typeof readCommandLine> | undefined;
};

type Run = {
  argv: readonly string[];
  io: CliIo;
  globals: GlobalOptions;
  verb: string | undefined;
  connection: Connection;
  style: Style;
  activity: Activity;
  interrupted: () => boolean;
  /** How the wallet unlocks to pay another server's tool (`--pay-from`). */
  payer: PayerSetup | undefined;
  /** In the kept-alive servers' daemon, on one of its sessions. */
  warm: boolean;
};

async function dispatch(run: Run): Promise<number> {
  const { io, globals, verb, connection, style } = run;
  if (verb === 'completion') return printCompletion(run);
  if (verb === 'tools') return printToolList(run);
  if (verb === 'resources' || verb === 'resource' || verb === 'prompts' || verb === 'prompt') {
    return (await import('./resources.js')).runListingVerb(verb, run);
  }
  if (verb === 'tasks') return (await import('./tasks.js')).runTasks(run);
  if (globals.getToolDefinition && connection.isBuiltIn) {
    // Meant to be pasted into an agent's config: the tools `wallet serve` serves, as it lists them.
    const { servedToolDefinitions } = await import('../mcp/setup.js');
    const document = servedToolDefinitions({ readOnly: globals.readOnly, profile: globals.profile ?? 'default' });
    io.stdout.write(
      JSON.stringify(inDialect(document, (globals.format ?? 'wallet') as FunctionDialect), null, 2) + '\n',
    );
    return EXIT.ok;
  }
  if (!globals.getToolDefinition && (globals.readOnly || globals.profile !== undefined)) {
    throw new UsageError('--read-only and --profile go with --get-tool-definition (or wallet serve).');
  }
  // A call (not help) takes the server's own list, not the cache's (below). In the daemon, that
  // is the list its session keeps until the server announces a change: asked for at once, it
  // spares the call reading and checking the cache it would set aside.
  const direct = run.warm && verb !== undefined && !globals.help && !globals.getToolDefinition;
  let list = await connection.tools(direct ? 'refresh' : 'allow');
  let commands = toolCommands(list.tools);
  if (globals.getToolDefinition) {
    io.stdout.write(JSON.stringify(definitionDocument(list, connection, globals.format), null, 2) + '\n');
    return EXIT.ok;
  }
  if (verb === undefined) {
    io.stdout.write(renderRootHelp(commands, { ...list.server, builtIn: connection.isBuiltIn }, GLOBAL_FLAGS, style));
    if (list.cached) io.stdout.write(cacheNote(list));
    return EXIT.ok;
  }
  let entry = findCommand(commands, verb);
  if (list.cached && (!entry || !globals.help)) {
    // Help may come from the cache; a call may not: its schema decides which fields are secret
    // and its annotations whether to confirm, so they must be the server's own, now. (Also a tool
    // added since the list was cached is found this way.)
    list = await connection.tools('refresh');
    commands = toolCommands(list.tools);
    entry = findCommand(commands, verb);
  }
  if (!entry) {
    const near = closestNames(verb, [
      ...commands.map((candidate) => candidate.command),
      ...CLI_VERBS.map((v) => v.name),
    ]);
    throw new UsageError(
      `Unknown command '${verb}'.`,
      near.length > 0 ? `Did you mean ${near.join(', ')}?` : "Run 'wallet --help' for the commands.",
    );
  }
  const specs = flagsFromSchema(entry.tool.inputSchema);
  const line = commandLineOf(run.argv, specs);
  // A command line that does not parse: help if the first parse saw it asked for it (the help
  // says how to write it), else the call is refused with the parse's own error.
  if ('error' in line ? globals.help : line.parsed['help'] === true) {
    io.stdout.write(renderCommandHelp(entry, specs, style));
    if (list.cached) io.stdout.write(cacheNote(list));
    return EXIT.ok;
  }
  if ('error' in line) throw line.error;
  const { runToolCommand } = await import('./run-tool.js');
  return runToolCommand(entry, { ...run, commands }, { specs, parsed: line.parsed });
}

/**
 * The command line parsed once the command's own flags are known: the second and last parse of
 * argv, which both the help check and the call read. The first knew only the global flags:
 * `--dry-run -h` was `--dry-run=-h` to it, and a value it could not tell from flags was read as
 * flags. With the command's flags, each word is what it is.
 */
function commandLineOf(
  argv: readonly string[],
  specs: readonly FlagSpec[],
): { parsed: ParsedFlags } | { error: unknown } {
  try {
    return { parsed: parseFlags(argv, [...GLOBAL_FLAGS, ...flagsOfCommand(specs)]) };
  } catch (error) {
    return { error };
  }
}

function findCommand(commands: readonly ToolCommand[], verb: string): ToolCommand | undefined {
  return commands.find((candidate) => candidate.command === verb || candidate.tool.name === verb);
}

function cacheNote(list: ToolList): string {
  return `\n(Tool list of ${list.server.name} cached ${list.cached?.savedAt ?? ''}; 'wallet tools --refresh' asks the server again.)\n`;
}

/** `wallet completion <shell>`: the script for the built-in tools (other servers' lists are read from the cache at TAB). */
async function printCompletion({ argv, io, connection }: Run): Promise<number> {
  const words = parseFlags(argv, GLOBAL_FLAGS)._.map(String);
  const shell = words[1];
  const { COMPLETION_SHELLS, completionScript } = await import('./completion/index.js');
  if (!connection.isBuiltIn)
    throw new UsageError(
      "wallet completion covers the built-in tools; the scripts read other servers' cached lists by themselves.",
    );
  if (shell === undefined || !(COMPLETION_SHELLS as readonly string[]).includes(shell)) {
    throw new UsageError(
      `wallet completion takes one of ${COMPLETION_SHELLS.join(', ')}.`,
      'See docs/CLI.md (Shell completion) for how to install it.',
    );
  }
  const { tools } = await connection.tools('allow');
  io.stdout.write(completionScript(shell as (typeof COMPLETION_SHELLS)[number], toolCommands(tools)));
  return EXIT.ok;
}

/**
 * The built-in server's unlock: a passphrase from a file, stdin, or a hidden prompt when a tool
 * first needs one. Whether stdin is a terminal is asked then too: a call that unlocks nothing
 * never makes `process.stdin` (src/cli/io.ts).
 */
async function builtInSetup(
  globals: GlobalOptions,
  io: CliIo,
  activity: Activity,
): Promise<{ setup: ConstructorParameters<typeof Connection>[3]; interrupted: () => boolean }> {
  const given =
    globals.passphraseFile !== undefined
      ? await readSecretFile(globals.passphraseFile, '--passphrase-file')
      : globals.passphraseStdin
        ? await readSecretStdin(io, '--passphrase-stdin')
        : undefined;
  let prompt: PassphrasePrompt | undefined;
  const passphrase = async (purpose: 'unlock' | 'new'): Promise<string | undefined> => {
    activity.pause();
    if (given === undefined && io.stdin.isTTY) prompt ??= passphrasePrompt(io);
    const value = given ?? (await prompt?.source(purpose));
    if (value !== undefined) activity.start('Unlocking the keystore…');
    return value;
  };
  // --debug: the built-in server logs each failure (its code, or an unexpected error's class and frames).
  const logLevel = globals.debug ? ('debug' as const) : undefined;
  return {
    setup: {
      env: io.env,
      endpoints: globals.endpoints,
      passphrase,
      logLevel,
      // What the built-in server tells the owner: what reconciling a state store did.
      announce: (line: string) => {
        activity.pause();
        io.stderr.write(`wallet: ${line}\n`);
      },
    },
    interrupted: () => prompt?.interrupted() ?? false,
  };
}

function definitionDocument(list: ToolList, connection: Connection, format: string | undefined): unknown {
  const own = packageInfo();
  const document = toolDefinitionDocument(
    {
      name: list.server.name,
      description: connection.isBuiltIn ? own.description : `Tools of the MCP server ${list.server.name}.`,
    },
    list.tools.map((tool: ListedTool) => ({
      name: tool.name,
      description: fullDescriptionOf(tool),
      parameters: tool.inputSchema,
    })),
  );
  return inDialect(document, (format ?? 'wallet') as FunctionDialect);
}

/** `wallet tools [--refresh]`: every tool with its command and badges. */
async function printToolList({ argv, io, globals, style, connection }: Run): Promise<number> {
  const flags = [...GLOBAL_FLAGS, ...TOOLS_FLAGS];
  const parsed = parseFlags(argv, flags);
  rejectUnknownFlags(parsed, flags, 'tools');
  const list = await connection.tools(parsed['refresh'] === true ? 'reload' : 'allow');
  const rows = toolCommands(list.tools).map(({ command, tool }) => ({
    command,
    tool: tool.name,
    summary: tool.description ?? '',
    badges: [
      tool.annotations?.readOnlyHint ? 'read-only' : '',
      tool.annotations?.destructiveHint ? 'destructive' : '',
      tool.annotations?.openWorldHint ? 'network' : '',
    ]
      .filter(Boolean)
      .join(' '),
  }));
  if (globals.json) io.stdout.write(JSON.stringify({ tools: rows }, null, 2) + '\n');
  else {
    io.stdout.write(renderHuman(rows, style));
    if (list.cached) io.stdout.write(cacheNote(list));
  }
  return EXIT.ok;
}

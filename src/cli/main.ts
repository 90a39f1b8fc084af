import {
  ConnectionError,
  RemoteProtocolError,
  openInProcessSession,
  openStdioSession,
  type ListedTool,
  type McpSession,
  type ToolCallResult,
} from '../mcp/client.js';
import { SetupError } from '../mcp/setup.js';
import { inDialect, toolDefinitionDocument, type FunctionDialect } from '../shared/function-catalogue.js';
import { packageInfo } from '../shared/package-info.js';
import { fullDescriptionOf, readToolErrorMeta } from '../shared/protocol-meta.js';
import { argumentsFromFlags, checkRequired, parseArgsJson } from './arguments.js';
import { flagsOfCommand, toolCommands } from './commands.js';
import { GLOBAL_FLAGS, parserFor, readGlobals, type CliFlag, type GlobalOptions } from './global-flags.js';
import { CLI_VERBS, renderCommandHelp, renderRootHelp, type ToolCommand } from './help.js';
import { processIo, readAll, type CliIo } from './io.js';
import { createStyle, renderHuman, type Style } from './render.js';
import { flagsFromSchema, type FlagSpec } from './schema-flags.js';
import {
  passphrasePrompt,
  PromptInterrupted,
  promptHidden,
  readSecretFile,
  readSecretStdin,
  type PassphrasePrompt,
} from './secrets.js';
import { progressLine } from './progress.js';
import { runServe } from './serve.js';
import { splitCommandLine } from './server-command.js';
import { closestNames } from './suggest.js';
import { rejectUnknownFlags } from './unknown-flags.js';
import { EXIT, UsageError } from './usage-error.js';

const DEFAULT_TIMEOUT_MS = 60_000;

/**
 * The whole CLI: parses argv, connects to the built-in server in-process (or to `--server`), turns
 * its tools into commands, runs one, and returns the exit code. Importable, so tests run it
 * in-process with fake streams.
 */
export async function runCli(argv: readonly string[], io: CliIo = processIo()): Promise<number> {
  let debug = argv.includes('--debug');
  try {
    const first = parserFor(argv, GLOBAL_FLAGS).parseSync() as Record<string, unknown>;
    const globals = readGlobals(first);
    debug = globals.debug;
    const verb = ((first['_'] as unknown[] | undefined) ?? []).map(String)[0];
    if (verb === 'serve') return await runServe(argv, io);
    if (globals.version && verb === undefined) {
      io.stdout.write(`${packageInfo().version}\n`);
      return EXIT.ok;
    }
    const style = createStyle(colorEnabled(globals, io));
    const { session, prompt } = await openSession(globals, io);
    try {
      return await dispatch({ argv, io, globals, verb, session, style, prompt });
    } finally {
      await session.close();
    }
  } catch (error) {
    return reportFailure(error, io, debug);
  }
}

type Run = {
  argv: readonly string[];
  io: CliIo;
  globals: GlobalOptions;
  verb: string | undefined;
  session: McpSession;
  style: Style;
  /** The passphrase prompt handed to the built-in server, when it may ask on the terminal. */
  prompt: PassphrasePrompt | undefined;
};

async function dispatch(run: Run): Promise<number> {
  const { io, globals, verb, session, style } = run;
  const tools = await session.listTools({ timeoutMs: globals.timeoutMs ?? DEFAULT_TIMEOUT_MS });
  const commands = toolCommands(tools);
  if (globals.getToolDefinition) {
    io.stdout.write(JSON.stringify(definitionDocument(tools, session, globals.format), null, 2) + '\n');
    return EXIT.ok;
  }
  if (verb === undefined) {
    io.stdout.write(
      renderRootHelp(commands, { ...session.server, builtIn: globals.server === undefined }, GLOBAL_FLAGS, style),
    );
    return EXIT.ok;
  }
  if (verb === 'tools') {
    rejectUnknownFlags(parseCommandLine(run.argv, []), GLOBAL_FLAGS, 'tools');
    return printToolList(commands, run);
  }
  const entry = commands.find((candidate) => candidate.command === verb || candidate.tool.name === verb);
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
  if (globals.help) {
    io.stdout.write(renderCommandHelp(entry, specs, style));
    return EXIT.ok;
  }
  const commandFlags = flagsOfCommand(specs);
  const parsed = parseCommandLine(run.argv, commandFlags);
  // Secrets first: a mnemonic typed inline must be refused before anything could echo a word of it.
  const inlineSecret = specs.find((spec) => spec.secret && parsed[spec.flag] !== undefined);
  if (inlineSecret) throw secretInArgv(inlineSecret);
  rejectUnknownFlags(parsed, [...GLOBAL_FLAGS, ...commandFlags], entry.command, {
    echoStrayWords: !specs.some((spec) => spec.secret),
  });
  const args = await collectArguments(specs, parsed, globals, io);
  const progress = progressLine(io.stderr);
  let result;
  try {
    result = await session.callTool(entry.tool.name, args, {
      // The built-in server may be waiting on the passphrase prompt: only an explicit --timeout applies.
      timeoutMs: globals.timeoutMs ?? (globals.server === undefined ? undefined : DEFAULT_TIMEOUT_MS),
      onProgress: (message) => progress.update(message),
    });
  } finally {
    progress.done();
  }
  if (run.prompt?.interrupted()) throw new PromptInterrupted();
  return printResult(result, globals, io, style);
}

function parseCommandLine(argv: readonly string[], commandFlags: readonly CliFlag[]): Record<string, unknown> {
  return parserFor(argv, [...GLOBAL_FLAGS, ...commandFlags]).parseSync() as Record<string, unknown>;
}

/** Flags, `--args-json` and secrets into one argument object, checked before any call. */
async function collectArguments(
  specs: readonly FlagSpec[],
  parsed: Readonly<Record<string, unknown>>,
  globals: GlobalOptions,
  io: CliIo,
): Promise<Record<string, unknown>> {
  const stdinReaders = [
    parsed['args-json'] === '-' ? '--args-json -' : undefined,
    globals.passphraseStdin ? '--passphrase-stdin' : undefined,
    ...specs.map((spec) => (spec.secret && parsed[`${spec.flag}-stdin`] === true ? `--${spec.flag}-stdin` : undefined)),
  ].filter((reader): reader is string => reader !== undefined);
  if (stdinReaders.length > 1)
    throw new UsageError(`Only one input can come from stdin; got ${stdinReaders.join(' and ')}.`);

  let base: Record<string, unknown> = {};
  const argsJson = parsed['args-json'];
  if (argsJson === '-') base = parseArgsJson(await readAll(io.stdin), '--args-json -');
  else if (argsJson !== undefined) {
    base = parseArgsJson(String(argsJson), '--args-json');
    const inlineSecret = specs.find((spec) => spec.secret && spec.property in base);
    if (inlineSecret) throw secretInArgv(inlineSecret);
  }
  const args = argumentsFromFlags(specs, parsed, base);
  for (const spec of specs.filter((candidate) => candidate.secret)) {
    const file = parsed[`${spec.flag}-file`];
    if (parsed[`${spec.flag}-stdin`] === true) args[spec.property] = await readSecretStdin(io, `--${spec.flag}-stdin`);
    else if (typeof file === 'string') args[spec.property] = await readSecretFile(file, `--${spec.flag}-file`);
    else if (spec.required && args[spec.property] === undefined && io.stdin.isTTY) {
      args[spec.property] = await promptHidden(io, `${spec.description || spec.property} (hidden): `);
    }
  }
  checkRequired(specs, args);
  return args;
}

function secretInArgv(spec: FlagSpec): UsageError {
  return new UsageError(
    `--${spec.flag} is a secret and is never taken from the command line (shell history, ps).`,
    `Use --${spec.flag}-stdin, --${spec.flag}-file <owner-only file>, or omit it on a terminal to be prompted.`,
  );
}

async function openSession(
  globals: GlobalOptions,
  io: CliIo,
): Promise<{ session: McpSession; prompt: PassphrasePrompt | undefined }> {
  if (globals.server !== undefined) {
    if (globals.passphraseFile !== undefined || globals.passphraseStdin) {
      throw new UsageError('--passphrase-file and --passphrase-stdin unlock the built-in keystore; not with --server.');
    }
    if (globals.endpoints.length > 0)
      throw new UsageError('--endpoint configures the built-in server; not with --server.');
    const session = await openStdioSession(
      { ...splitCommandLine(globals.server), stderr: 'inherit' },
      globals.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
    return { session, prompt: undefined };
  }
  const given =
    globals.passphraseFile !== undefined
      ? await readSecretFile(globals.passphraseFile, '--passphrase-file')
      : globals.passphraseStdin
        ? await readSecretStdin(io, '--passphrase-stdin')
        : undefined;
  const prompt = given === undefined && io.stdin.isTTY ? passphrasePrompt(io) : undefined;
  const session = await openInProcessSession({
    env: io.env,
    endpoints: globals.endpoints,
    passphrase: given ?? prompt?.source,
  });
  return { session, prompt };
}

function definitionDocument(tools: readonly ListedTool[], session: McpSession, format: string | undefined): unknown {
  const own = packageInfo();
  const builtIn = session.server.name === own.name;
  const document = toolDefinitionDocument(
    {
      name: session.server.name,
      description: builtIn ? own.description : `Tools of the MCP server ${session.server.name}.`,
    },
    tools.map((tool) => ({ name: tool.name, description: fullDescriptionOf(tool), parameters: tool.inputSchema })),
  );
  return inDialect(document, (format ?? 'wallet') as FunctionDialect);
}

function printToolList(commands: readonly ToolCommand[], { io, globals, style }: Run): number {
  const rows = commands.map(({ command, tool }) => ({
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
  io.stdout.write(globals.json ? JSON.stringify({ tools: rows }, null, 2) + '\n' : renderHuman(rows, style));
  return EXIT.ok;
}

function printResult(result: ToolCallResult, globals: GlobalOptions, io: CliIo, style: Style): number {
  if (result.isError) {
    const meta = readToolErrorMeta(result._meta);
    const message = meta ? `${meta.code}: ${meta.message}` : textOf(result) || 'The tool reported an error.';
    io.stderr.write(`${style.error('error')}: ${message}\n`);
    if (meta?.hint) io.stderr.write(`hint: ${meta.hint}\n`);
    return meta?.code === 'INVALID_PARAM' || meta?.code === 'NETWORK_REQUIRED' ? EXIT.usage : EXIT.toolError;
  }
  if (globals.json) {
    const value = result.structuredContent ?? { content: result.content };
    io.stdout.write(JSON.stringify(value, null, 2) + '\n');
  } else if (result.structuredContent !== undefined) {
    io.stdout.write(renderHuman(result.structuredContent, style));
  } else {
    io.stdout.write(textOf(result) + '\n');
  }
  return EXIT.ok;
}

function textOf(result: ToolCallResult): string {
  return result.content
    .map((block) => (block.type === 'text' && block.text !== undefined ? block.text : `[${block.type}]`))
    .join('\n');
}

function colorEnabled(globals: GlobalOptions, io: CliIo): boolean {
  if (globals.color === false || (io.env['NO_COLOR'] ?? '') !== '') return false;
  return globals.color === true || io.stdout.isTTY === true;
}

/** The one place failures become stderr text and an exit code; stack traces only with --debug. */
function reportFailure(error: unknown, io: CliIo, debug: boolean): number {
  const say = (message: string, hint?: string): void => {
    io.stderr.write(`error: ${message}\n`);
    if (hint) io.stderr.write(`hint: ${hint}\n`);
    if (debug && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  };
  if (error instanceof UsageError || error instanceof SetupError) {
    say(error.message, error.hint);
    return EXIT.usage;
  }
  if (error instanceof ConnectionError) {
    say(error.message, 'Check the --server command, or run it by hand to see why it fails.');
    return EXIT.connection;
  }
  if (error instanceof RemoteProtocolError) {
    say(`the server refused the request (${error.code}): ${error.message}`);
    return error.code === -32602 ? EXIT.usage : EXIT.toolError;
  }
  if (error instanceof PromptInterrupted) {
    io.stderr.write('interrupted\n');
    return EXIT.interrupted;
  }
  say(
    `unexpected failure: ${error instanceof Error ? error.message : String(error)}`,
    'Run again with --debug for details.',
  );
  return EXIT.toolError;
}

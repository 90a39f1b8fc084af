import {
  ClientRefusal,
  RemoteProtocolError,
  type ListedTool,
  type TaskState,
  type ToolCallResult,
} from '../mcp/session.js';
import { inDialect, isToolDefinitionDocument, type FunctionDialect } from '../shared/function-catalogue.js';
import { isJsonSchema } from '../shared/json-schema.js';
import { checkFieldOf, dryRunFieldOf, readToolErrorMeta, receiveAddressFieldOf } from '../shared/protocol-meta.js';
import type { Activity } from './activity.js';
import { argumentsFromFlags, checkRequired, parseArgsJson, secretValue } from './arguments.js';
import { flagsOfCommand } from './commands.js';
import { canAskOnTerminal, confirmDestructive } from './confirm.js';
import { DEFAULT_TIMEOUT_MS, type Connection } from './connection.js';
import type { PayerSetup } from '../mcp/x402-payer.js';
import { GLOBAL_FLAGS, readGlobals, type GlobalOptions, type ParsedFlags } from './global-flags.js';
import type { ToolCommand } from './help.js';
import { readAll, type CliIo } from './io.js';
import { renderQr } from './qr.js';
import { renderHuman, terminalSafe, type Style } from './render.js';
import { flagsFromSchema, type FlagSpec } from './schema-flags.js';
import { PromptInterrupted, promptHidden, readSecretFile, readSecretStdin } from './secrets.js';
import { inCliWords, type ToolWords } from './tool-words.js';
import { withBaseUnits } from './typed-amounts.js';
import { rejectUnknownFlags } from './unknown-flags.js';
import { EXIT, exitCodeOfToolError, UsageError } from './usage-error.js';

export type ToolRun = {
  argv: readonly string[];
  io: CliIo;
  globals: GlobalOptions;
  style: Style;
  connection: Connection;
  activity: Activity;
  /** Every listed tool's command: a server's hints name tools, printed here as commands. */
  commands: readonly ToolCommand[];
  /** Whether Ctrl-C was pressed at the passphrase prompt: the call's WALLET_LOCKED is then no news. */
  interrupted?: () => boolean;
  /** How the wallet unlocks to pay the tool with x402 (`--pay-from`, src/cli/x402-pay.ts). */
  payer?: PayerSetup | undefined;
};

/** A tool's result that ended the run early (a failed dry run before a confirmation). */
class EarlyResult extends Error {
  constructor(readonly result: ToolCallResult) {
    super('early result');
  }
}

/** The command's flags, and the command line as parsed knowing them (see `runCli`). */
export type CommandLine = { specs: readonly FlagSpec[]; parsed: ParsedFlags };

/**
 * Runs one tool command: flags and secrets into arguments, a confirmation for destructive tools,
 * the call (with a spinner and progress), and the result printed. Returns the exit code.
 */
export async function runToolCommand(
  entry: ToolCommand,
  commandRun: ToolRun,
  { specs, parsed }: CommandLine,
): Promise<number> {
  const commandFlags = flagsOfCommand(specs);
  // The global flags as this parse, which knows the command's flags, reads them: the first one
  // took the value of `--memo -y` for `--yes`.
  const run: ToolRun = { ...commandRun, globals: readGlobals(parsed) };
  const { io, globals, connection, activity } = run;
  // Secrets first: a mnemonic typed inline must be refused before anything could echo a word of it.
  const inlineSecret = specs.find((spec) => spec.secret && parsed[spec.flag] !== undefined);
  if (inlineSecret) throw secretInArgv(inlineSecret);
  rejectUnknownFlags(parsed, [...GLOBAL_FLAGS, ...commandFlags], entry.command, {
    echoStrayWords: !specs.some((spec) => spec.secret),
  });
  if (globals.format !== undefined && entry.tool.annotations?.readOnlyHint !== true) {
    throw new UsageError(`--format applies to tool definition documents; '${entry.command}' does not return one.`);
  }
  const args = await collectArguments(specs, withBaseUnits(entry.tool.inputSchema, specs, parsed), globals, io);
  const timeoutMs = globals.timeoutMs ?? (connection.isBuiltIn ? undefined : DEFAULT_TIMEOUT_MS);
  const call = async (callArgs: Record<string, unknown>, meta?: Record<string, unknown>): Promise<ToolCallResult> => {
    const session = await connection.open();
    if (entry.tool.annotations?.openWorldHint === true) activity.start(`${entry.tool.title ?? entry.command}…`);
    // Another server's call may become a task: Ctrl-C then cancels it (tasks/cancel) before exit 130.
    const interrupt = connection.isBuiltIn ? undefined : new AbortController();
    const onSigint = (): void => interrupt?.abort();
    if (interrupt) process.once('SIGINT', onSigint);
    try {
      return await session.callTool(entry.tool.name, callArgs, {
        // The built-in server may be waiting on the passphrase prompt: only an explicit --timeout applies.
        timeoutMs,
        meta,
        onProgress: (message) => activity.progress(message),
        signal: interrupt?.signal,
        onTask: (task) => taskStatus(task, run),
      });
    } catch (error) {
      // The list may be out of date (a tool renamed, an output schema changed).
      if (error instanceof RemoteProtocolError || error instanceof ClientRefusal) await connection.forgetCachedList();
      throw error;
    } finally {
      if (interrupt) process.removeListener('SIGINT', onSigint);
      activity.stop();
    }
  };
  try {
    const dryRun = dryRunFieldOf(entry.tool);
    if (
      entry.tool.annotations?.destructiveHint === true &&
      !(dryRun !== undefined && args[dryRun] === true) &&
      // On a terminal, a server that gets its own human yes (`wallet serve`) asks the person
      // through this client's answerer, every call: one question, not two. Without a terminal
      // the CLI's rule stands (refused unless --yes), before any server is contacted.
      !(!globals.yes && canAskOnTerminal(io) && !connection.isBuiltIn && (await connection.open()).confirmsDestructive)
    ) {
      await confirmDestructive(io, entry.command, globals.yes, () => planText(entry, specs, args, run, call));
    }
    const payment = run.globals.payment;
    if (payment && run.payer) {
      const { runPaidCall } = await import('./x402-pay.js');
      return await runPaidCall(
        entry,
        run,
        run.payer,
        payment,
        (meta) => call(args, meta),
        (result) => printResult(entry.tool, result, run),
      );
    }
    const result = await call(args);
    if (result.isError && !connection.isBuiltIn) {
      // Another server's tool that asks for x402 payment: say so, and how --pay-from pays it.
      const { explainPaymentRequest } = await import('./x402-pay.js');
      return await printResult(entry.tool, explainPaymentRequest(result, entry), run);
    }
    return await printResult(entry.tool, result, run);
  } catch (error) {
    if (error instanceof EarlyResult) return printResult(entry.tool, error.result, run);
    throw error;
  }
}

/**
 * A task's news on stderr, one line a change (stdout keeps the result only); with `--detach`,
 * the call ends at the task's creation.
 */
function taskStatus(task: TaskState, { io, globals, activity }: ToolRun): 'detach' | undefined {
  if (globals.detach) return 'detach';
  activity.pause();
  io.stderr.write(
    `task ${terminalSafe(task.taskId, true)}: ${terminalSafe(task.status, true)}` +
      `${task.statusMessage ? ` — ${terminalSafe(task.statusMessage, true)}` : ''}\n`,
  );
  return undefined;
}

/**
 * What a confirmation shows: the arguments as resolved (secrets hidden) and, for a tool that
 * offers a dry run, its plan (inputs, fee, change) from the same server.
 */
async function planText(
  entry: ToolCommand,
  specs: readonly FlagSpec[],
  args: Readonly<Record<string, unknown>>,
  run: ToolRun,
  call: (args: Record<string, unknown>) => Promise<ToolCallResult>,
): Promise<string> {
  const shown: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    shown[key] = specs.some((spec) => spec.secret && spec.property === key) ? '(hidden)' : value;
  }
  const lines = [
    `${run.style.heading(`${entry.command}`)} will run with:`,
    renderHuman(shown, run.style, entry.tool.inputSchema),
  ];
  const dryRun = dryRunFieldOf(entry.tool);
  if (dryRun !== undefined) {
    const preview = await call({ ...args, [dryRun]: true });
    if (preview.isError) throw new EarlyResult(preview);
    if (preview.structuredContent !== undefined) {
      lines.push(
        `${run.style.heading('Plan')} (dry run):`,
        renderHuman(preview.structuredContent, run.style, outputSchemaOf(entry.tool)),
      );
    }
  }
  return lines.join('\n');
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
    let text: string | undefined;
    if (parsed[`${spec.flag}-stdin`] === true) text = await readSecretStdin(io, `--${spec.flag}-stdin`);
    else if (typeof file === 'string') text = await readSecretFile(file, `--${spec.flag}-file`);
    else if (spec.required && args[spec.property] === undefined && io.stdin.isTTY) {
      text = await promptHidden(io, `${spec.description || spec.property} (hidden): `);
    }
    if (text !== undefined) args[spec.property] = secretValue(spec, text);
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

async function printResult(
  tool: ListedTool,
  result: ToolCallResult,
  { globals, io, style, commands, interrupted, connection }: ToolRun,
): Promise<number> {
  // Ctrl-C at the prompt left the server without a passphrase: say "interrupted", not WALLET_LOCKED.
  if (result.isError && interrupted?.() === true) throw new PromptInterrupted();
  if (result.task) {
    // --detach: the task's id is the result; `wallet tasks` follows it from here.
    const { taskId, status } = result.task;
    // The id is the result, printed as is for scripts: one holding control characters is refused.
    if (terminalSafe(taskId, true) !== taskId) {
      throw new ClientRefusal(
        `the server's task id holds control characters (${terminalSafe(taskId, true)}); it is not printed as a result`,
      );
    }
    io.stdout.write(globals.json ? JSON.stringify({ task_id: taskId, status }, null, 2) + '\n' : `${taskId}\n`);
    io.stderr.write(
      `task ${taskId}: ${terminalSafe(status, true)}; 'wallet tasks result ${taskId}' ` +
        'with the same --server or --url waits for its result.\n',
    );
    if (connection.isStdio) {
      io.stderr.write(
        "wallet: warning: over stdio the server is this command's child and exits with it: the task goes on only if " +
          'the server keeps its tasks beyond its process (most keep them in memory). --url to a running server keeps them.\n',
      );
    }
    return EXIT.ok;
  }
  if (result.isError) {
    const meta = readToolErrorMeta(result._meta);
    const words = toolWords(tool, commands);
    // A server that sends no code of ours (any other server's tool) gets TOOL_ERROR and a hint,
    // as every error has both (docs/CLI.md).
    const message = meta
      ? `${meta.code}: ${inCliWords(meta.message, words)}`
      : `TOOL_ERROR: ${textOf(result) || 'The tool reported an error.'}`;
    const hint = meta
      ? meta.hint && inCliWords(meta.hint, words)
      : `The server gave no error code: its message is all it said. '${commands.find((entry) => entry.tool.name === tool.name)?.command ?? tool.name} --help' shows what it takes.`;
    io.stderr.write(`${style.error('error')}: ${terminalSafe(message)}\n`);
    if (hint) io.stderr.write(`hint: ${terminalSafe(hint)}\n`);
    return exitCodeOfToolError(meta?.code);
  }
  if (globals.format !== undefined) {
    // `--format` prints a function-calling document in a dialect, whichever tool returned it.
    if (!isToolDefinitionDocument(result.structuredContent)) {
      throw new UsageError(`--format applies to tool definition documents; '${tool.name}' did not return one.`);
    }
    const dialect = inDialect(result.structuredContent, globals.format as FunctionDialect);
    io.stdout.write(JSON.stringify(dialect, null, 2) + '\n');
    return EXIT.ok;
  }
  if (globals.json) {
    const value = result.structuredContent ?? { content: result.content };
    io.stdout.write(JSON.stringify(value, null, 2) + '\n');
    return checkExit(tool, result);
  }
  if (result.structuredContent === undefined) {
    io.stdout.write(renderHuman(textOf(result), style));
    return EXIT.ok;
  }
  const width = io.stdout.isTTY ? io.stdout.columns : undefined;
  io.stdout.write(renderHuman(result.structuredContent, style, outputSchemaOf(tool), width ? { width } : {}));
  const field = receiveAddressFieldOf(tool);
  const address = field ? (result.structuredContent as Record<string, unknown> | null)?.[field] : undefined;
  if (typeof address === 'string' && (globals.qr ?? io.stdout.isTTY === true)) {
    // The call succeeded: a value too long for a QR code costs the picture, not the exit code.
    const qr = await renderQr(address, style).catch(() => undefined);
    if (qr) io.stdout.write('\n' + qr);
    else io.stderr.write(`note: ${field} is too long for a QR code.\n`);
  }
  return checkExit(tool, result);
}

/** A check the tool declares (`wallet/check-field`) that came back false exits 1; the result is printed all the same. */
function checkExit(tool: ListedTool, result: ToolCallResult): number {
  const field = checkFieldOf(tool);
  const content = result.structuredContent as Record<string, unknown> | null | undefined;
  return field !== undefined && content?.[field] === false ? EXIT.toolError : EXIT.ok;
}

/** The words a hint may use as flags: the called tool's arguments and the CLI's own flags. */
function toolWords(tool: ListedTool, commands: readonly ToolCommand[]): ToolWords {
  const properties = flagsFromSchema(tool.inputSchema).map((spec) => spec.property);
  const own = GLOBAL_FLAGS.map((flag) => flag.name.replaceAll('-', '_'));
  return { commands, arguments: new Set([...properties, ...own]) };
}

function outputSchemaOf(tool: ListedTool): ListedTool['inputSchema'] | undefined {
  return isJsonSchema(tool.outputSchema) ? tool.outputSchema : undefined;
}

function textOf(result: ToolCallResult): string {
  return result.content
    .map((block) => (block.type === 'text' && block.text !== undefined ? block.text : `[${block.type}]`))
    .join('\n');
}

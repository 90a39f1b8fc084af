import type { z } from 'zod';
import { asWalletError, WalletError } from '../domain/errors.js';
import {
  appendAuditRecord,
  auditableFields,
  checkAuditLog,
  auditLogPath,
  NETWORK_NAME_PATTERN,
  type AuditFields,
  type AuditOutcome,
} from '../domain/policy/audit-log.js';
import { countedCall } from '../shared/calls-running.js';
import { processStderr } from '../shared/std-output.js';
import { clipForDisplay } from '../shared/text.js';
import type { AnyTool, ToolContext } from './define.js';

declare const validated: unique symbol;

/**
 * A tool's arguments as its input schema accepted them, defaults filled in. Only
 * {@link validateInput} makes one, so a handler run from it never sees unchecked arguments.
 */
export type ToolInput = { readonly tool: AnyTool; readonly data: Record<string, unknown>; readonly [validated]: true };

/** Arguments checked against a tool's input schema, once: the typed input, or why they are refused. */
export type Validation =
  { ok: true; input: ToolInput } | { ok: false; tool: AnyTool; args: unknown; error: z.ZodError };

/** Checks `args` against the tool's input schema. Where arguments enter (tools/call) and nowhere below. */
export function validateInput(tool: AnyTool, args: unknown): Validation {
  const input = tool.input.safeParse(args ?? {});
  if (!input.success) return { ok: false, tool, args, error: input.error };
  return { ok: true, input: { tool, data: input.data } as ToolInput };
}

/**
 * The same call as a dry run, without checking it again: the catalogue holds every `dryRunField`
 * to an optional boolean of a strict object that no refinement reads, so setting it to true is
 * what validating the arguments with it set would give.
 */
export function asDryRun(input: ToolInput): ToolInput {
  const field = input.tool.dryRunField;
  if (field === undefined) throw new Error(`${input.tool.name} has no dry run.`);
  return { ...input, data: { ...input.data, [field]: true } };
}

/**
 * Runs one tool under its contract: the input is validated (a bad one is `INVALID_PARAM` naming
 * the field), the handler runs, and its result must match the output schema (else it is our bug:
 * `INTERNAL`). Returns the structured result. A destructive tool's call, whatever its outcome,
 * also leaves one line in the audit log.
 */
export function invokeTool(
  tool: AnyTool,
  args: unknown,
  context: ToolContext,
  options: { audited?: boolean; approval?: string } = {},
): Promise<Record<string, unknown>> {
  return invokeValidated(validateInput(tool, args), context, options);
}

/**
 * {@link invokeTool} for arguments validated where they entered: a valid input runs without being
 * checked again; an invalid one is refused (and logged) exactly as invokeTool refuses it.
 */
export function invokeValidated(
  validation: Validation,
  context: ToolContext,
  options: { audited?: boolean; approval?: string } = {},
): Promise<Record<string, unknown>> {
  return countedCall(() => invokeUnderContract(validation, context, options));
}

async function invokeUnderContract(
  validation: Validation,
  context: ToolContext,
  { audited = true, approval }: { audited?: boolean; approval?: string },
): Promise<Record<string, unknown>> {
  const tool = validation.ok ? validation.input.tool : validation.tool;
  const logged = audited && (tool.annotations.destructiveHint || tool.consent !== undefined);
  // Before anything: a call whose audit line cannot be written safely is refused, unlogged.
  if (logged) {
    try {
      checkAuditLog(context.services.dataDir);
    } catch (error) {
      throw asWalletError(error);
    }
  }
  if (!validation.ok) {
    const error = invalidInputError(validation.error, validation.args);
    if (logged) await audit(tool, context, { network: networkArgument(validation.args) }, { error });
    throw error;
  }
  const input = validation.input;
  if (!logged) return runHandler(tool, input.data, context);
  const by = { authority: context.authority, ...(approval ? { approval } : {}) };
  let output: Record<string, unknown>;
  try {
    output = await runHandler(tool, input.data, context);
  } catch (error) {
    // An agent's call that needs a human yes is logged by the server, with the approval it asks for.
    if (!(error instanceof WalletError && error.code === 'APPROVAL_REQUIRED')) {
      await audit(tool, context, { ...(await auditFields(tool, input.data, undefined, error)), ...by }, { error });
    }
    throw error;
  }
  await audit(
    tool,
    context,
    { ...(await auditFields(tool, input.data, output)), ...by },
    undefined,
    outcomeOf(tool, input.data, output),
  );
  return output;
}

/**
 * The audit line of a destructive call that stopped before it ran: the user was asked to confirm
 * it (`asked`, with the plan the question showed), or declined (`error`).
 */
export async function auditStoppedCall(
  tool: AnyTool,
  input: unknown,
  context: ToolContext,
  stop: { asked: Record<string, unknown> | undefined; approval?: string } | { error: WalletError },
): Promise<void> {
  if ('error' in stop) {
    await audit(tool, context, await auditFields(tool, input, undefined), { error: stop.error });
  } else {
    const approval = stop.approval ? { approval: stop.approval } : {};
    await audit(tool, context, { ...(await auditFields(tool, input, stop.asked)), ...approval }, undefined, 'asked');
  }
}

async function runHandler(tool: AnyTool, input: unknown, context: ToolContext): Promise<Record<string, unknown>> {
  let result: unknown;
  try {
    result = await tool.handler(input, context);
  } catch (error) {
    // A refused data-directory file (shared/ cannot make WalletErrors) travels as one from here.
    throw asWalletError(error);
  }
  const output = tool.output.safeParse(result);
  if (!output.success) {
    throw new WalletError('INTERNAL', `Tool ${tool.name} produced a result that breaks its output schema.`, {
      cause: output.error,
    });
  }
  return output.data;
}

/**
 * The tool's own audit fields, each checked (an address, digits, a hash the call computed; never
 * a raw argument), given the call's result or, when it failed, its `failure`; a tool whose
 * `audit` fails still gets its line, with fewer fields.
 */
export async function auditFields(
  tool: AnyTool,
  input: unknown,
  output: unknown,
  failure?: unknown,
): Promise<AuditFields> {
  try {
    return auditableFields((await tool.audit?.(input, output, failure)) ?? {}, input);
  } catch {
    return {};
  }
}

/**
 * Appends the call's audit line. Never throws: when the log cannot be written the call's own
 * result still stands (a payment that went out must not be reported as failed), and stderr says so.
 */
async function audit(
  tool: AnyTool,
  context: ToolContext,
  fields: AuditFields,
  failure?: { error: unknown },
  done: AuditOutcome = 'ok',
): Promise<void> {
  const failed = failure !== undefined;
  const outcome: AuditOutcome = failed ? 'error' : done;
  // Only a WalletError's message is written: any other may quote its input, which can be a secret.
  const walletError = !failure
    ? undefined
    : failure.error instanceof WalletError
      ? failure.error
      : new WalletError('INTERNAL', 'Internal error.');
  const record = {
    time: new Date().toISOString(),
    tool: tool.name,
    outcome,
    ...fields,
    ...(walletError ? { error: { code: walletError.code, message: walletError.message } } : {}),
  };
  const stillStands = `${tool.name} ${failed ? 'failed' : 'succeeded'} all the same`;
  try {
    await context.services.appendAudit(record);
  } catch (writeError) {
    const reason = writeError instanceof Error && 'code' in writeError ? String(writeError.code) : 'unknown error';
    const local = auditLogPath(context.services.dataDir);
    // A state setting that cannot even be read is the store's failure too (its location unknown).
    const store = await context.services.stateLocation().then(
      (location) => (location === undefined ? undefined : `the state store ${location.shown}`),
      () => 'the state store (its setting is invalid)',
    );
    if (store === undefined) {
      processStderr().write(`wallet: could not write the audit log ${local} (${reason}); ${stillStands}.\n`);
      return;
    }
    // The store is down: the line goes to this machine's audit.log rather than nowhere.
    const fallback = await appendAuditRecord(context.services.dataDir, record).then(
      () => `appended it to the local audit log ${local} instead`,
      () => `nor to the local audit log ${local}`,
    );
    processStderr().write(
      `wallet: could not write the audit line to ${store} (${reason}); ${fallback}; ${stillStands}.\n`,
    );
  }
}

/**
 * What a call that succeeded did, as the tool declares it: a dry run when its `dryRunField` is set,
 * else its `outcome` (`signed`, `sent`), else `ok`. Never read from the names of its audit fields.
 */
function outcomeOf(tool: AnyTool, input: unknown, output: unknown): AuditOutcome {
  const dryRun = tool.dryRunField;
  if (dryRun !== undefined && (input as Record<string, unknown>)[dryRun] === true) return 'dry_run';
  if (typeof tool.outcome === 'function') return tool.outcome(output);
  return tool.outcome ?? 'ok';
}

/** The network a call named, when it is written like a network name (nothing else is echoed). */
function networkArgument(args: unknown): string | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  const network = (args as Record<string, unknown>)['network'];
  return typeof network === 'string' && NETWORK_NAME_PATTERN.test(network) ? network : undefined;
}

/** Unknown argument keys named in an error, at most. */
const MAX_KEYS_SHOWN = 5;

/**
 * The first problem of a zod input error as one line that names the field. The offending value
 * is never echoed: it may be a secret.
 */
function invalidInputError(error: z.ZodError, args: unknown): WalletError {
  const [first, ...rest] = error.issues;
  const more = rest.length > 0 ? ` (and ${rest.length} more problem${rest.length > 1 ? 's' : ''})` : '';
  if (!first) return new WalletError('INVALID_PARAM', 'Invalid arguments.');
  if (first.code === 'unrecognized_keys') {
    // The keys are the caller's text: clipped, and a handful at most, so the message stays a line.
    const shown = first.keys.slice(0, MAX_KEYS_SHOWN).map((key) => `'${clipForDisplay(key)}'`);
    const unshown = first.keys.length - shown.length;
    const keys = `${shown.join(', ')}${unshown > 0 ? ` and ${unshown} more` : ''}`;
    return new WalletError('INVALID_PARAM', `Unknown argument${first.keys.length > 1 ? 's' : ''} ${keys}${more}.`, {
      hint: 'tool_describe lists the arguments this tool takes.',
    });
  }
  const field = first.path.length > 0 ? clipForDisplay(first.path.map(String).join('.'), 128) : 'arguments';
  const missing =
    (first.code === 'invalid_type' || first.code === 'invalid_value') && valueAt(args, first.path) === undefined;
  if (missing && field === 'network') {
    return new WalletError('NETWORK_REQUIRED', 'This tool spends, signs or deletes: it needs an explicit network.', {
      hint: "Pass network: mainnet, testnet or regtest for Dash (the wallet's own); mainnet, sepolia, local or a configured one for EVM.",
    });
  }
  const message = missing ? `Missing required argument '${field}'` : `Invalid argument '${field}': ${first.message}`;
  return new WalletError('INVALID_PARAM', `${message}${more}.`);
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

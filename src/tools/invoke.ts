import type { z } from 'zod';
import { WalletError } from '../domain/errors.js';
import type { AnyTool, ToolContext } from './define.js';

/**
 * Runs one tool under its contract: the input is validated (a bad one is `INVALID_PARAM` naming
 * the field), the handler runs, and its result must match the output schema (else it is our bug:
 * `INTERNAL`). Returns the structured result.
 */
export async function invokeTool(tool: AnyTool, args: unknown, context: ToolContext): Promise<Record<string, unknown>> {
  const input = tool.input.safeParse(args ?? {});
  if (!input.success) throw invalidInputError(input.error, args);
  const result = await tool.handler(input.data, context);
  const output = tool.output.safeParse(result);
  if (!output.success) {
    throw new WalletError('INTERNAL', `Tool ${tool.name} produced a result that breaks its output schema.`, {
      cause: output.error,
    });
  }
  return output.data;
}

/**
 * The first problem of a zod input error as one line that names the field. The offending value
 * is never echoed: it may be a secret.
 */
export function invalidInputError(error: z.ZodError, args: unknown): WalletError {
  const [first, ...rest] = error.issues;
  const more = rest.length > 0 ? ` (and ${rest.length} more problem${rest.length > 1 ? 's' : ''})` : '';
  if (!first) return new WalletError('INVALID_PARAM', 'Invalid arguments.');
  if (first.code === 'unrecognized_keys') {
    const keys = first.keys.map((key) => `'${key}'`).join(', ');
    return new WalletError('INVALID_PARAM', `Unknown argument ${keys}${more}.`, {
      hint: 'tool_describe lists the arguments this tool takes.',
    });
  }
  const field = first.path.length > 0 ? first.path.map(String).join('.') : 'arguments';
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

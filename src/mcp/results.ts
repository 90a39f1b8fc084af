import type { CallToolResult } from '@modelcontextprotocol/server';
import { asWalletError, WalletError } from '../domain/errors.js';
import { ERROR_META_KEY, type ToolErrorMeta } from '../shared/protocol-meta.js';

/**
 * A tool's structured result as an MCP result: `structuredContent` plus the same JSON as text,
 * compact (an agent reads it as well indented, and pays fewer tokens for it).
 */
export function successResult(structured: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(structured) }],
    structuredContent: structured,
  };
}

/**
 * The one place a failure becomes an MCP tool result: `isError`, a text block for any client, and
 * the code as data in `_meta` for ours. Anything but a WalletError is `INTERNAL` with a generic
 * message, so no stray detail (a path, a secret) leaks through an exception's text.
 */
export function errorResult(thrown: unknown): CallToolResult {
  const error = asWalletError(thrown);
  const walletError =
    error instanceof WalletError
      ? error
      : new WalletError('INTERNAL', 'Internal error.', {
          hint: 'Run the server with --log-level debug to see the details on its stderr.',
        });
  const meta: ToolErrorMeta = { code: walletError.code, message: walletError.message };
  if (walletError.hint !== undefined) meta.hint = walletError.hint;
  if (walletError.details !== undefined) meta.details = { ...walletError.details };
  const text = [`${meta.code}: ${meta.message}`, ...(meta.hint === undefined ? [] : [`hint: ${meta.hint}`])].join('\n');
  return { content: [{ type: 'text', text }], isError: true, _meta: { [ERROR_META_KEY]: meta } };
}

import type { ParseError } from 'jsonc-parser';
import type { AgentFormat } from './agent-configs.js';
import { describeJsonError } from './json-problems.js';

/** What an agent's file is, parsed; or why it is not, as a position (never a quote: it may hold tokens). */
export type ParsedAgentFile = { ok: true; document: unknown } | { ok: false; problem: string };

/**
 * Parses the text of an agent's config file in its syntax. JSON with comments (`jsonc`) and TOML
 * load their parsers here, on first use: no other command pays for them.
 *
 * @example
 * await parseAgentFile('[mcp_servers.wallet]\ncommand = "wallet"\n', 'toml')
 * // { ok: true, document: { mcp_servers: { wallet: { command: 'wallet' } } } }
 */
export async function parseAgentFile(text: string, syntax: AgentFormat['syntax']): Promise<ParsedAgentFile> {
  if (syntax === 'toml') {
    const { parse, TomlError } = await import('smol-toml');
    try {
      return { ok: true, document: parse(text) };
    } catch (error) {
      if (error instanceof TomlError)
        return { ok: false, problem: `not valid TOML (line ${error.line}, column ${error.column})` };
      throw error;
    }
  }
  try {
    return { ok: true, document: JSON.parse(text) };
  } catch (error) {
    if (syntax === 'json') return { ok: false, problem: describeJsonError(error, text) };
  }
  const { parse, printParseErrorCode } = await import('jsonc-parser');
  const errors: ParseError[] = [];
  const document: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first === undefined) return { ok: true, document };
  const before = text.slice(0, first.offset);
  const line = before.split('\n').length;
  const column = first.offset - before.lastIndexOf('\n');
  return {
    ok: false,
    problem: `not valid JSON (line ${line}, column ${column}: ${printParseErrorCode(first.error)})`,
  };
}

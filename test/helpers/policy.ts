import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ToolFailure } from './mcp.js';

/** One line of the audit log as the tests read it. */
export type AuditLine = Record<string, unknown> & {
  tool: string;
  outcome: string;
  error?: { code: string; message: string };
};

/** The audit log of a data directory, one parsed line each, oldest first. */
export function auditLines(home: string): AuditLine[] {
  return readFileSync(join(home, 'audit.log'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as AuditLine);
}

/** The refusal a call ended with: POLICY_VIOLATION naming `rule`, nothing signed; returns the message. */
export async function refused(call: Promise<unknown>, rule: string): Promise<string> {
  const error = await call.then(
    () => assert.fail(`expected a refusal by ${rule}`),
    (failure: unknown) => failure,
  );
  assert.ok(error instanceof ToolFailure, String(error));
  assert.equal(error.code, 'POLICY_VIOLATION', error.message);
  assert.ok(error.message.includes(`Refused by policy ${rule}: `), error.message);
  assert.match(error.message, /Nothing was signed or sent\./);
  return error.message;
}

/**
 * Writes the config.json of a data directory: `policy` for the built-in `local` EVM network, and
 * `networks` beside it (more names for a chain, or other chains).
 */
export function writeLocalPolicy(
  home: string,
  policy: Record<string, unknown>,
  networks: Record<string, unknown> = {},
): void {
  writeFileSync(join(home, 'config.json'), JSON.stringify({ evm: { networks: { local: { policy }, ...networks } } }), {
    mode: 0o600,
  });
}

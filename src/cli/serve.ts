import { isLogLevel, LOG_LEVELS } from '../mcp/logger.js';
import { startStdioServer } from '../mcp/stdio/serve.js';
import { parserFor, repeatedValues, type CliFlag } from './global-flags.js';
import type { CliIo } from './io.js';
import { readSecretFile } from './secrets.js';
import { EXIT, UsageError } from './usage-error.js';
import { rejectUnknownFlags } from './unknown-flags.js';

export const SERVE_FLAGS: readonly CliFlag[] = [
  { name: 'read-only', type: 'boolean', description: 'Serve only the tools whose annotations say read-only.' },
  {
    name: 'log-level',
    type: 'string',
    choices: LOG_LEVELS,
    description: 'Log requests to stderr (method, tool, id, outcome, duration). Default: $WALLET_LOG_LEVEL or off.',
  },
  {
    name: 'passphrase-file',
    type: 'string',
    value: 'path',
    description: 'Unlock the keystore at start with the passphrase in this owner-only file.',
  },
  { name: 'endpoint', type: 'array', value: 'chain.network=url', description: 'Use this node endpoint (repeatable).' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'Show help.' },
];

const SERVE_HELP = `wallet serve — the wallet's tools over MCP, on stdio

Usage: wallet serve [--read-only] [--log-level debug] [--passphrase-file <path>]

Speaks MCP on stdin/stdout for an agent (Claude, Codex, Gemini CLI, …): both the 2025 'initialize'
handshake and the 2026-07-28 protocol. stdout carries JSON-RPC only; logs go to stderr. Tools that
reveal or accept secrets are never served here. Exits when stdin closes or on SIGTERM.

Flags:
  --read-only                  Serve only the tools whose annotations say read-only.
  --log-level <${LOG_LEVELS.join('|')}>
                               Log each request to stderr; default $WALLET_LOG_LEVEL, else off.
  --passphrase-file <path>     Unlock the keystore at start (owner-only file).
  --endpoint <chain.network=url>
                               Use this node endpoint (repeatable).

Example (Claude Code): claude mcp add wallet -- wallet serve
`;

/** `wallet serve`: runs until the client closes stdin or a signal arrives, then exits 0. */
export async function runServe(argv: readonly string[], io: CliIo): Promise<number> {
  const parsed = parserFor(argv, SERVE_FLAGS).parseSync() as Record<string, unknown>;
  rejectUnknownFlags(parsed, SERVE_FLAGS, 'serve');
  if (parsed['help'] === true) {
    io.stdout.write(SERVE_HELP);
    return EXIT.ok;
  }
  const level = parsed['log-level'] ?? io.env['WALLET_LOG_LEVEL'] ?? 'off';
  if (!isLogLevel(level)) {
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}; got '${String(level)}'.`);
  }
  const passphraseFile = parsed['passphrase-file'];
  const passphrase =
    typeof passphraseFile === 'string' ? await readSecretFile(passphraseFile, '--passphrase-file') : undefined;
  const serving = startStdioServer({
    readOnly: parsed['read-only'] === true,
    logLevel: level,
    env: io.env,
    endpoints: repeatedValues(parsed, 'endpoint'),
    passphrase,
  });
  const stop = (): void => void serving.close();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    await serving.closed;
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
  }
  return EXIT.ok;
}

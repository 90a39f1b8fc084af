import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, from build/test/helpers/. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const WALLET_BIN = join(ROOT, 'bin', 'wallet.js');
/** The compiled fixture server (tsc builds it with the tests). */
export const FIXTURE_SERVER = join(ROOT, 'build', 'test', 'fixtures', 'fixture-server.js');
/** An MCP server that answers tool calls with tasks (2026-07-28 tasks extension): test/fixtures/task-server.ts. */
export const TASK_SERVER = join(ROOT, 'build', 'test', 'fixtures', 'task-server.js');
/** A paid MCP server (x402 over MCP, settling on anvil): test/fixtures/x402-mcp-server.ts. */
export const X402_MCP_SERVER = join(ROOT, 'build', 'test', 'fixtures', 'x402-mcp-server.js');
export const EVERYTHING_SERVER = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);

import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, from build/test/helpers/. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const WALLET_BIN = join(ROOT, 'bin', 'wallet.js');
/** The compiled fixture server (tsc builds it with the tests). */
export const FIXTURE_SERVER = join(ROOT, 'build', 'test', 'fixtures', 'fixture-server.js');
export const EVERYTHING_SERVER = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-everything',
  'dist',
  'index.js',
);

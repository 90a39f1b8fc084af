#!/usr/bin/env node
// Installs conformance/ (the MCP conformance suite, the MCP Inspector and Node 22 from the npm
// registry) with `npm ci` when its lockfile changed since the last install. The system Node stays
// the one the wallet runs on; the tests start these tools with conformance/node_modules/.bin/node.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = join(import.meta.dirname, '..', 'conformance');
const stamp = join(dir, 'node_modules', '.wallet-install-stamp');
const lock = createHash('sha256')
  .update(readFileSync(join(dir, 'package-lock.json')))
  .digest('hex');
if (existsSync(stamp) && readFileSync(stamp, 'utf8') === lock) process.exit(0);
console.error('conformance/: installing the MCP conformance suite, the MCP Inspector and Node 22 (npm ci)…');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
if (result.status !== 0) {
  console.error('conformance/: npm ci failed');
  process.exit(result.status ?? 1);
}
writeFileSync(stamp, lock);

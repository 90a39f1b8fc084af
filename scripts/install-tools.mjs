#!/usr/bin/env node
// Installs a folder of tools that live outside the wallet's own install, with `npm ci`, when its
// lockfile changed since the last install: conformance/ (the MCP conformance suite, the MCP
// Inspector and Node 22 from the npm registry, which `npm test` runs) and bench/tools/ (the
// baselines the benchmarks compare with). The system Node stays the one the wallet runs on.
//
//   node scripts/install-tools.mjs conformance
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname, '..');

/** Runs `npm ci` in `dir` unless its lockfile is the one installed last; exits the process on failure. */
export function installTools(dir, what) {
  const stamp = join(dir, 'node_modules', '.wallet-install-stamp');
  const lock = createHash('sha256')
    .update(readFileSync(join(dir, 'package-lock.json')))
    .digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === lock) return;
  const name = `${relative(ROOT, dir)}/`;
  console.error(`${name}: installing ${what} (npm ci)…`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`${name}: npm ci failed`);
    process.exit(result.status ?? 1);
  }
  writeFileSync(stamp, lock);
}

const FOLDERS = {
  conformance: 'the MCP conformance suite, the MCP Inspector and Node 22',
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const folder = process.argv[2] ?? '';
  if (!(folder in FOLDERS)) {
    console.error(`usage: node scripts/install-tools.mjs ${Object.keys(FOLDERS).join('|')}`);
    process.exit(2);
  }
  installTools(join(ROOT, folder), FOLDERS[folder]);
}

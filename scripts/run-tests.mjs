#!/usr/bin/env node
// Runs the compiled tests (build/test/**/*.test.js) with node:test. Node 20 neither runs .ts files
// nor expands quoted globs, so the files are listed here. Extra arguments go to `node --test`.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(import.meta.dirname, '..', 'build', 'test');
const files = readdirSync(root, { recursive: true })
  .map(String)
  .filter((file) => file.endsWith('.test.js'))
  .map((file) => relative(process.cwd(), join(root, file)))
  .sort();
if (files.length === 0) {
  console.error(`no compiled tests under ${root}: run the build first`);
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--test', ...process.argv.slice(2), ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);

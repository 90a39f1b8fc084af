#!/usr/bin/env node
// Runs the compiled tests (build/test/**/*.test.js) with node:test. Node 20 neither runs .ts files
// nor expands quoted globs, so the files are listed here. Extra arguments go to `node --test`.
//
// `--tier unit`: test/unit/ only (pure pieces, seconds). `--tier fast`: everything but
// test/hardening/ and the files that start a real node (anvil, litecoind, PostgreSQL) or need the Node 22
// conformance tools; which files those are is read from their imports, never listed by hand.
// Without --tier: the whole suite (what `npm test` and CI run).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const TIERS = ['unit', 'fast', 'all'];
/** What a test file imports or names when it needs a real node or the conformance tools. */
const NEEDS_REAL_PARTS = [
  /helpers\/anvil\.js'/,
  /helpers\/litecoind\.js'/,
  /helpers\/postgres\.js'/,
  /\bCONFORMANCE_DIR\b/,
];

const args = process.argv.slice(2);
const at = args.indexOf('--tier');
const tier = at === -1 ? 'all' : args[at + 1];
if (!TIERS.includes(tier)) {
  console.error(`--tier takes one of ${TIERS.join(', ')}; got ${tier ?? 'nothing'}`);
  process.exit(2);
}
const nodeArgs = at === -1 ? args : [...args.slice(0, at), ...args.slice(at + 2)];

const root = join(import.meta.dirname, '..', 'build', 'test');
const sources = join(import.meta.dirname, '..', 'test');
const files = readdirSync(root, { recursive: true })
  .map(String)
  .filter((file) => file.endsWith('.test.js'))
  // tsc never deletes an output: a test moved or removed since the last build leaves its old
  // compiled copy behind, which must not run (twice, or against code it no longer matches).
  .filter((file) => existsSync(join(sources, file.replace(/\.js$/, '.ts'))))
  .filter((file) => {
    if (tier === 'unit') return file.startsWith(`unit${sep}`);
    if (tier === 'fast') {
      if (file.startsWith(`hardening${sep}`)) return false;
      const source = readFileSync(join(root, file), 'utf8');
      return !NEEDS_REAL_PARTS.some((pattern) => pattern.test(source));
    }
    return true;
  })
  .map((file) => relative(process.cwd(), join(root, file)))
  .sort();
if (files.length === 0) {
  console.error(`no compiled tests under ${root}: run the build first`);
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--test', ...nodeArgs, ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);

#!/usr/bin/env node
// A reader that goes away (`wallet … | head`) is not an error of ours: stop quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

// The build bundles the CLI into dist/wallet.cjs and keeps V8's code cache of it beside it
// (scripts/bundle.mjs): compiling it with that cache skips most of the parsing a start would do.
// V8 checks the cache against the source and its own version, and ignores it when they differ.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const bundle = fileURLToPath(new URL('../dist/wallet.cjs', import.meta.url));
const cacheFile = `${bundle}.cache`;
const writeCache = process.env.WALLET_CODE_CACHE === 'write';
delete process.env.WALLET_CODE_CACHE;
let cachedData;
if (!writeCache) {
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // No cache (yet): compile from source.
  }
}
const script = new Script(Module.wrap(readFileSync(bundle, 'utf8')), { filename: bundle, cachedData });
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
const { runCli } = module.exports;
process.exitCode = await runCli(process.argv.slice(2));
if (writeCache) writeFileSync(cacheFile, script.createCachedData());

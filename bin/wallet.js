#!/usr/bin/env node
// CommonJS (bin/package.json says so): Node starts a CommonJS entry ~10 ms sooner than an ES
// module one, as it need not set up its ES module loader first.
'use strict';

// A reader that goes away (`wallet … | head`) is not an error of ours: stop quietly.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const { readFileSync, writeFileSync } = require('node:fs');
const { dirname, join } = require('node:path');

// `wallet --version` and nothing else needs only package.json: answered here, without loading the
// bundle (the CLI's own --version reads the same field), in about the time Node takes to start.
// So is the help of the built-in tools, from what the build recorded of the CLI's own output.
if (process.argv.length === 3 && process.argv[2] === '--version') {
  process.stdout.write(`${packageVersion()}\n`);
} else if (!printRecordedHelp(process.argv.slice(2))) {
  runBundle();
}

function packageVersion() {
  return JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version;
}

// `wallet --help` and `wallet <command> --help` for a built-in tool's command (either order, or
// -h) print the text the build recorded for them (dist/help.json, src/cli/help-record.ts: the
// CLI's own output for that command line), coloured as the CLI would colour it without --color
// or --no-color (src/cli/render.ts, colorEnabled): on a terminal, unless NO_COLOR is set. Any
// other command line, or a record missing or of another version, goes to the CLI.
function printRecordedHelp(args) {
  const isHelp = (arg) => arg === '--help' || arg === '-h';
  const words = args.filter((arg) => !isHelp(arg));
  if (args.length - words.length !== 1 || words.length > 1 || words.some((word) => word.startsWith('-'))) {
    return false;
  }
  let record;
  try {
    record = JSON.parse(readFileSync(join(__dirname, '..', 'dist', 'help.json'), 'utf8'));
  } catch {
    return false;
  }
  const key =
    words.length === 0 ? '' : Object.hasOwn(record.commands, words[0]) ? record.commands[words[0]] : undefined;
  if (key === undefined || record.version !== packageVersion()) return false;
  const color = (process.env.NO_COLOR ?? '') === '' && process.stdout.isTTY === true;
  const texts = color ? record.color : record.plain;
  if (!Object.hasOwn(texts, key) || typeof texts[key] !== 'string') return false;
  process.stdout.write(texts[key]);
  return true;
}

// The build bundles the CLI into dist/wallet.cjs and keeps V8's code cache of it beside it
// (scripts/bundle.mjs): compiling it with that cache skips most of the parsing a start would do.
// V8 checks the cache against the source and its own version, and ignores it when they differ.
function runBundle() {
  const bundle = join(__dirname, '..', 'dist', 'wallet.cjs');
  const args = process.argv.slice(2);
  // The build's switch, for this process only: no server it spawns may see it.
  const writeCache = process.env.WALLET_CODE_CACHE === 'write';
  delete process.env.WALLET_CODE_CACHE;
  const spawnedAhead = args.some((arg) => arg === '--server' || arg.startsWith('--server='))
    ? spawnAhead(args)
    : undefined;
  try {
    runWith(bundle, args, writeCache, spawnedAhead);
  } catch (error) {
    // The CLI never started (a missing or damaged bundle): the server spawned for it is ended.
    spawnedAhead?.process.stop();
    throw error;
  }
}

function runWith(bundle, args, writeCache, spawnedAhead) {
  const { createRequire, Module } = require('node:module');
  const { Script } = require('node:vm');
  // Two caches of the same bundle: help touches a small part of it, and deserialising the cache
  // of a tool call (the MCP client and server, the tools, the keystore) would cost it more than
  // it saves. A wrong guess only costs time: V8 compiles what a cache lacks.
  const helpOnly = args.length === 0 || args.includes('--help') || args.includes('-h');
  const cacheFile = `${bundle}${helpOnly ? '.help' : ''}.cache`;
  let cachedData;
  if (!writeCache) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      // No cache (yet): compile from source.
    }
  }
  // The bundle is ASCII (esbuild escapes the rest; the build checks it), so reading it as latin1
  // gives the same string as UTF-8 without decoding 3 MB: ~2 ms less a start.
  const script = new Script(Module.wrap(readFileSync(bundle, 'latin1')), { filename: bundle, cachedData });
  const module_ = { exports: {} };
  script.runInThisContext()(module_.exports, createRequire(bundle), module_, bundle, dirname(bundle));
  const { runCli } = module_.exports;
  // A run that never settles (the event loop emptied under it) is a failure, not a success.
  process.exitCode = 1;
  runCli(args, undefined, { spawnedAhead }).then((code) => {
    process.exitCode = code;
    if (writeCache) writeFileSync(cacheFile, script.createCachedData());
  });
}

// A tool call of a stdio server spoken to before (`--server "<command>"`) spawns it here, before
// the bundle loads, so that the server starts while the CLI does (dist/ahead.cjs, a small bundle
// of the modules the CLI resolves its server with; src/cli/ahead.ts). The CLI adopts that
// process, or ends it. Without the file, or should it fail, the CLI spawns the server itself.
function spawnAhead(args) {
  try {
    return require(join(__dirname, '..', 'dist', 'ahead.cjs')).spawnAhead(args);
  } catch {
    return undefined;
  }
}

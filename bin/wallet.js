#!/usr/bin/env node
// CommonJS (bin/package.json says so): Node starts a CommonJS entry ~10 ms sooner than an ES
// module one, as it need not set up its ES module loader first.
'use strict';

const { existsSync, fstatSync, readFileSync, writeFileSync, writeSync } = require('node:fs');
const { dirname, join } = require('node:path');

// A reader that goes away (`wallet … | head`) is not an error of ours: stop quietly. Said of each
// stream as it is made, not here: making `process.stdout` of a pipe loads Node's `net` and
// streams (~3 ms), and a run that writes its output directly (below, src/shared/std-output.ts) never makes it.
let streamMade = false;
for (const name of ['stdout', 'stderr']) {
  const { get } = Object.getOwnPropertyDescriptor(process, name);
  let watched = false;
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: true,
    get() {
      const stream = get.call(process);
      if (!watched) {
        watched = true;
        streamMade = true;
        stream.on('error', (error) => {
          if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
          throw error;
        });
      }
      return stream;
    },
  });
}

// `wallet --version` and nothing else needs only package.json: answered here, without loading the
// bundle (the CLI's own --version reads the same field), in about the time Node takes to start.
// So is the help of the built-in tools, from what the build recorded of the CLI's own output.
if (process.argv.length === 3 && process.argv[2] === '--version') {
  writeOut(`${packageVersion()}\n`);
} else if (!printRecordedHelp(process.argv.slice(2))) {
  runBundle();
}

function packageVersion() {
  return JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version;
}

// `wallet --help` and `wallet <command> --help` for a built-in tool's command (either order, or
// -h) print the text the build recorded for them (dist/help.json, src/startup/help-record.ts: the
// CLI's own output for that command line), coloured as the CLI would colour it without --color
// or --no-color (src/cli/render.ts, colorEnabled): on a terminal, unless NO_COLOR is set. Any
// other command line, or a record missing or of another version, goes to the CLI.
function printRecordedHelp(args) {
  const isHelp = (arg) => arg === '--help' || arg === '-h';
  const words = args.filter((arg) => !isHelp(arg));
  if (args.length - words.length !== 1 || words.length > 1 || words.some((word) => word.startsWith('-'))) {
    return false;
  }
  let text;
  try {
    const record = JSON.parse(readFileSync(join(__dirname, '..', 'dist', 'help.json'), 'utf8'));
    if (record.version !== packageVersion()) return false;
    const key =
      words.length === 0 ? '' : Object.hasOwn(record.commands, words[0]) ? record.commands[words[0]] : undefined;
    if (typeof key !== 'string') return false;
    const color = (process.env.NO_COLOR ?? '') === '' && isTerminal(1);
    const texts = color ? record.color : record.plain;
    text = Object.hasOwn(texts, key) ? texts[key] : undefined;
  } catch {
    // No record, or a damaged one: the CLI renders the help.
    return false;
  }
  if (typeof text !== 'string') return false;
  writeOut(text);
  return true;
}

// What bin/wallet.js prints itself, written as src/shared/std-output.ts writes the CLI's output:
// directly to a pipe or a file, through `process.stdout` to a terminal or once a direct write fails.
function writeOut(text) {
  let written = 0;
  const bytes = Buffer.from(text, 'utf8');
  try {
    if (!isTerminal(1)) {
      while (written < bytes.length) written += writeSync(1, bytes, written);
      return;
    }
  } catch {
    // Node's stream takes it from here.
  }
  process.stdout.write(bytes.subarray(written));
}

// Whether a descriptor is a terminal, asked as src/shared/std-output.ts asks it: `tty.isatty` only
// of a character device, as loading `node:tty` loads `net` too.
function isTerminal(fd) {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return require('node:tty').isatty(fd);
}

// The build bundles the CLI into dist/wallet.cjs and keeps V8's code cache of it beside it
// (src/startup/bundle.mjs): compiling it with that cache skips most of the parsing a start would do.
// V8 ignores a cache of another V8, flags or source length (not text: the build deletes the
// caches before it writes a bundle). `wallet serve …` has a bundle of its own, dist/serve.cjs
// (src/cli/serve-main.ts): a third smaller, so an agent's server starts sooner; without it (a
// build that failed halfway) the CLI's bundle serves.
function runBundle() {
  const args = process.argv.slice(2);
  const serveBundle = join(__dirname, '..', 'dist', 'serve.cjs');
  const serving = args[0] === 'serve' && existsSync(serveBundle);
  const bundle = serving ? serveBundle : join(__dirname, '..', 'dist', 'wallet.cjs');
  // The build's switch, for this process only: no server it spawns may see it. It saves the code
  // cache of each bundle this run loads.
  const writeCache = process.env.WALLET_CODE_CACHE === 'write';
  delete process.env.WALLET_CODE_CACHE;
  const spawnedAhead = args.some((arg) => arg === '--server' || arg.startsWith('--server='))
    ? spawnAhead(args, writeCache)
    : undefined;
  try {
    runWith(bundle, serving, args, writeCache, spawnedAhead);
  } catch (error) {
    // The CLI never started (a missing or damaged bundle): the server spawned for it is ended.
    spawnedAhead?.process.stop();
    throw error;
  }
}

function runWith(bundle, serving, args, writeCache, spawnedAhead) {
  // Three caches of the CLI's bundle, as each kind of run uses a different part of it: help a
  // small one; a call of the built-in server its server, tools and keystore; a call of another
  // server (--server, --url) the SDK's client instead. Deserialising the cache of another kind
  // would cost more than it saves. A wrong guess only costs time: V8 compiles what a cache
  // lacks. serve.cjs has one.
  const kind = serving
    ? ''
    : args.length === 0 || args.includes('--help') || args.includes('-h')
      ? '.help'
      : args.some((arg) => /^--(server|url)(=|$)/.test(arg))
        ? '.remote'
        : '';
  const loaded = load(bundle, `${bundle}${kind}.cache`, writeCache);
  const { runCli, runServeCli } = loaded.exports;
  // A run that never settles (the event loop emptied under it) is a failure, not a success.
  process.exitCode = 1;
  (serving ? runServeCli(args) : runCli(args, undefined, { spawnedAhead })).then((code) => {
    process.exitCode = code;
    if (writeCache) loaded.saveCache();
    if (!serving) exitWhenIdle(loaded.exports.toolCallsRunning);
  });
}

// Once a command is done, Node exits when nothing is left open, after tearing its heap down: ~2 ms
// of a tool call (docs/PERFORMANCE.md). When nothing is left, it exits now, without that: no
// child, socket or timer, no stream of stdout or stderr, whose writes may still be queued (the
// command wrote its output with `writeSync`, src/shared/std-output.ts), and no tool call still
// running, one the CLI stopped waiting for (--timeout): Node does not list the thread pool's work,
// such as a keystore's scrypt. File requests do not count: the CLI awaits every one it makes,
// and those still listed are answered ones not yet let go (the one whose callback ended the
// command, a failed open). Anything else left open, it waits for.
function exitWhenIdle(toolCallsRunning) {
  if (streamMade || toolCallsRunning?.() === true) return;
  const open = process.getActiveResourcesInfo().filter((type) => !type.startsWith('FSReq'));
  if (open.length === 0) process.exit();
}

// A tool call of a stdio server spoken to before (`--server "<command>"`) spawns it here, before
// the bundle loads, so that the server starts while the CLI does (dist/ahead.cjs, a small bundle
// of the modules the CLI resolves its server with; src/startup/ahead.ts, with a code cache of its
// own). The CLI adopts that process, or ends it. Without the file, or should it fail, the CLI
// spawns the server itself.
function spawnAhead(args, writeCache) {
  try {
    const file = join(__dirname, '..', 'dist', 'ahead.cjs');
    const loaded = load(file, `${file}.cache`, writeCache);
    const spawned = loaded.exports.spawnAhead(args);
    if (writeCache) loaded.saveCache();
    return spawned;
  } catch {
    return undefined;
  }
}

// Runs a CommonJS bundle of dist/ compiled with its code cache, unless one is being made. The
// bundles are ASCII (esbuild escapes the rest; the build checks it), so reading them as latin1
// gives the same string as UTF-8 without decoding 2.2 MB: ~2 ms less a start.
function load(file, cacheFile, writingCache) {
  const { createRequire, Module } = require('node:module');
  const { Script } = require('node:vm');
  let cachedData;
  if (!writingCache) {
    try {
      cachedData = readFileSync(cacheFile);
    } catch {
      // No cache (yet): compile from source.
    }
  }
  // An `import()` inside a vm.Script fails on Node 20 once its code comes from a cache; the bundle
  // imports the one package it leaves out (the Dash Platform SDK, ESM with wasm, for Platform calls
  // only) through this file's own import() instead (src/domain/platform/sdk.ts).
  globalThis[Symbol.for('wallet.importExternal')] = (specifier) => import(specifier);
  const script = new Script(Module.wrap(readFileSync(file, 'latin1')), { filename: file, cachedData });
  const module_ = { exports: {} };
  script.runInThisContext()(module_.exports, createRequire(file), module_, file, dirname(file));
  const saveCache = () => {
    try {
      writeFileSync(cacheFile, script.createCachedData());
    } catch (error) {
      // The build then finds no cache and says so; a command that ran is not failed for it.
      process.stderr.write(`wallet: could not save ${cacheFile}: ${error.message}\n`);
    }
  };
  return { exports: module_.exports, saveCache };
}

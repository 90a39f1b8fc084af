// Helpers shared by the benchmarks to run: options, the build check, temp dirs, child processes
// (the figures and how they are printed: report.mjs). Plain ESM with no build step, so a benchmark
// runs against whatever dist/ holds.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

export const ROOT = join(import.meta.dirname, '..', '..');
export const WALLET_BIN = join(ROOT, 'bin', 'wallet.js');

/**
 * Stops with a message unless `node bin/wallet.js --version` works: the launcher runs the build
 * in dist/, not the sources, and what it needs from dist/ is the build's business.
 */
async function requireBuild() {
  const { code, signal, stderr } = await run(process.execPath, [WALLET_BIN, '--version'], {
    env: withoutWalletVariables(),
  });
  if (code !== 0) {
    fail(`\`node bin/wallet.js --version\` failed (${code ?? signal}): run \`npm run build\` first.\n${stderr}`);
  }
}

/**
 * A benchmark's start: its options read from the command line ({@link readOptions}; `spec`, then
 * --json, which every benchmark takes), and the build checked ({@link requireBuild}).
 */
export async function startBench(spec, usage) {
  const options = readOptions(
    { ...spec, json: { type: 'boolean', help: 'print the figures as JSON instead of text' } },
    usage,
  );
  await requireBuild();
  return options;
}

/** --runs and --warmup of a benchmark whose every round runs each command once. */
export function roundOptions({ runs, warmup, minWarmup = 0 }) {
  return {
    runs: { type: 'integer', default: runs, env: 'BENCH_RUNS', help: 'measured rounds (each command once per round)' },
    warmup: {
      type: 'integer',
      default: warmup,
      min: minWarmup,
      env: 'BENCH_WARMUP',
      help: 'warm-up rounds, not counted',
    },
  };
}

/**
 * The order of one round's commands: shuffled afresh each round, by a generator seeded with the
 * round's number (the same orders in every run). A rotation (round + slot) keeps each command
 * after the same neighbour in all but one round in N: one always run after the heaviest command
 * (whose processes leave the machine's caches cold) was measured 10-20% slower than the same
 * build after a light one, a bias of the order, not of the command.
 */
export function roundOrder(commands, round) {
  // mulberry32, seeded by the round.
  let seed = (round + 1) * 0x9e3779b9;
  const next = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const order = [...commands];
  for (let index = order.length - 1; index > 0; index--) {
    const other = Math.floor(next() * (index + 1));
    [order[index], order[other]] = [order[other], order[index]];
  }
  return order;
}

/** Prints a message on stderr and exits 2 (a benchmark that cannot run is not a figure). */
export function fail(message) {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
}

/**
 * The command line's options. `spec` maps an option name to `{ type, default, env, help }`; a
 * numeric option (`type: 'integer'`) is read from its flag, else its environment variable, else
 * its default. `--help` prints the usage and exits 0.
 */
function readOptions(spec, usage) {
  const parserSpec = { help: { type: 'boolean', short: 'h' } };
  for (const [name, option] of Object.entries(spec)) {
    parserSpec[name] = { type: option.type === 'boolean' ? 'boolean' : 'string' };
  }
  let values;
  try {
    ({ values } = parseArgs({ options: parserSpec, allowPositionals: false, strict: true }));
  } catch (error) {
    fail(`${error.message}\n\n${usageText(spec, usage)}`);
  }
  if (values.help) {
    process.stdout.write(usageText(spec, usage));
    process.exit(0);
  }
  const options = {};
  for (const [name, option] of Object.entries(spec)) {
    const text = values[name] ?? (option.env ? process.env[option.env] : undefined);
    if (option.type === 'boolean') options[name] = values[name] ?? option.default ?? false;
    else if (text === undefined) options[name] = option.default;
    else if (option.type === 'integer') options[name] = positiveInteger(text, name, option.min ?? 1);
    else if (option.type === 'integers') options[name] = text.split(',').map((part) => positiveInteger(part, name, 1));
    else if (option.choices && !option.choices.includes(text)) {
      fail(`--${name} must be one of ${option.choices.join(', ')}; got '${text}'`);
    } else options[name] = text;
  }
  return options;
}

function positiveInteger(text, name, min) {
  const value = Number(text);
  if (!Number.isInteger(value) || value < min) fail(`--${name} must be an integer >= ${min}; got '${text}'`);
  return value;
}

function usageText(spec, usage) {
  const lines = [usage, '', 'Options:'];
  for (const [name, option] of Object.entries(spec)) {
    const value = option.choices ? option.choices.join('|') : option.type === 'string' ? 'text' : 'n';
    const flag = option.type === 'boolean' ? `--${name}` : `--${name} <${value}>`;
    const extra = [
      option.default !== undefined && option.type !== 'boolean' ? `default ${option.default}` : undefined,
      option.env ? `env ${option.env}` : undefined,
    ].filter(Boolean);
    lines.push(`  ${flag.padEnd(28)} ${option.help}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`);
  }
  lines.push(`  ${'-h, --help'.padEnd(28)} this text`, '');
  return lines.join('\n');
}

/**
 * The environment of a wallet child: this one's, less every WALLET_* variable (a log level or an
 * endpoint set in the caller's shell would change what is measured), with WALLET_HOME set.
 */
export function walletEnv(home) {
  return { ...withoutWalletVariables(), WALLET_HOME: home };
}

function withoutWalletVariables() {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('WALLET_')));
}

/** A fresh private directory under the OS temp dir, removed by the returned function. */
export function temporaryDirectory(prefix) {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * Runs a command to completion with stdout and stderr piped and drained; resolves with its exit
 * code, the bytes it wrote and the stderr text (last 4 KiB).
 */
export function run(command, args, { env, cwd = ROOT, input } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, cwd, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr = (stderr + chunk).slice(-4096)));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
    if (input !== undefined) child.stdin.end(input);
  });
}

/** VmRSS and VmHWM (peak resident set) of a live process in KiB, from /proc; undefined elsewhere. */
export function memoryOf(pid) {
  let status;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKiB: field('VmRSS'), hwmKiB: field('VmHWM') };
}

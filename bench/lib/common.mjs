// Helpers shared by the benchmarks: options, statistics, the machine, tables, temp dirs, child
// processes. Plain ESM with no build step, so a benchmark runs against whatever dist/ holds.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, availableParallelism, loadavg, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

export const ROOT = join(import.meta.dirname, '..', '..');
export const WALLET_BIN = join(ROOT, 'bin', 'wallet.js');

/**
 * Stops with a message unless `node bin/wallet.js --version` works: the launcher runs the build
 * in dist/, not the sources, and what it needs from dist/ is the build's business.
 */
export async function requireBuild() {
  const { code, signal, stderr } = await run(process.execPath, [WALLET_BIN, '--version'], {
    env: withoutWalletVariables(),
  });
  if (code !== 0) {
    fail(`\`node bin/wallet.js --version\` failed (${code ?? signal}): run \`npm run build\` first.\n${stderr}`);
  }
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
export function readOptions(spec, usage) {
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
 * Median (the mean of the two middle samples for an even count) and p90 (nearest rank: the
 * smallest sample with at least 90% of the samples at or below it) of a list of numbers.
 */
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return { n: 0, median: NaN, p90: NaN, min: NaN, max: NaN };
  const middle = Math.floor(n / 2);
  const median = n % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  const p90 = sorted[Math.max(0, Math.ceil(0.9 * n) - 1)];
  return { n, median, p90, min: sorted[0], max: sorted[n - 1] };
}

/** The machine the figures come from, to print with them. */
export function machine() {
  const list = cpus();
  return {
    node: process.version,
    nodePath: process.execPath,
    v8: process.versions.v8,
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    availableParallelism: availableParallelism(),
    platform: `${process.platform} ${release()} ${process.arch}`,
    loadAverage: loadavg().map((load) => Number(load.toFixed(2))),
    nodeOptions: process.env.NODE_OPTIONS ?? null,
  };
}

export function machineLines(info) {
  const lines = [
    `node ${info.node} (${info.nodePath}), V8 ${info.v8}`,
    `cpu  ${info.cpu}, ${info.cores} cores (availableParallelism ${info.availableParallelism})`,
    `os   ${info.platform}; load average ${info.loadAverage.join(' ')} (1/5/15 min) at start`,
  ];
  if (info.nodeOptions) lines.push(`NODE_OPTIONS=${info.nodeOptions} (inherited by every child)`);
  return lines;
}

/**
 * Text columns. `rows` are arrays of cells; a number is printed with `digits` decimals. A column
 * is right-aligned when `align` says 'r' for it (default: when every cell of it is a number).
 */
export function table(headers, rows, { align, digits = 1 } = {}) {
  const text = (cell) => (typeof cell === 'number' ? cell.toFixed(digits) : String(cell));
  const cells = [headers, ...rows.map((row) => row.map(text))];
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column].length)));
  const right = headers.map((_, column) =>
    align ? align[column] === 'r' : rows.every((row) => typeof row[column] === 'number'),
  );
  return cells
    .map((row) =>
      row
        .map((cell, column) => (right[column] ? cell.padStart(widths[column]) : cell.padEnd(widths[column])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

export const fixed = (value, digits = 1) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : value);

/** A command line as one could paste it into a POSIX shell; an env value like `$NAME` stays a reference. */
export function commandLine(argv, env = {}) {
  const quote = (word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`);
  const prefix = Object.entries(env).map(([name, value]) => `${name}=${/^\$\w+$/.test(value) ? value : quote(value)}`);
  return [...prefix, ...argv.map(quote)].join(' ');
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

// The figures of the benchmarks and how they are printed: statistics, the machine they come from,
// tables, command lines. Plain ESM with no build step.
import { cpus, availableParallelism, loadavg, release } from 'node:os';

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

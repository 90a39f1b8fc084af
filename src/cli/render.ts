import { Chalk, type ChalkInstance } from 'chalk';

export type Style = {
  key(text: string): string;
  dim(text: string): string;
  heading(text: string): string;
  error(text: string): string;
};

/** Colours on a terminal only, and never with NO_COLOR or --no-color. */
export function createStyle(enabled: boolean): Style {
  const chalk: ChalkInstance = new Chalk({ level: enabled ? 1 : 0 });
  return { key: chalk.cyan, dim: chalk.dim, heading: chalk.bold, error: chalk.red };
}

type Scalar = string | number | boolean | null;

/**
 * A structured result for people: objects as aligned `key: value` blocks, arrays of objects as
 * tables, nested values indented. Nothing is truncated (addresses and amounts must be whole).
 *
 * @example
 * renderHuman({ address: 'yRd4…', index: 0 }, createStyle(false))
 * // 'address  yRd4…\nindex    0\n'
 */
export function renderHuman(value: unknown, style: Style): string {
  return block(value, style, '').join('\n') + '\n';
}

function block(value: unknown, style: Style, indent: string): string[] {
  if (Array.isArray(value)) return list(value, style, indent);
  if (!isRecord(value)) return [indent + scalarText(value)];
  const entries = Object.entries(value);
  if (entries.length === 0) return [indent + style.dim('(empty)')];
  const width = Math.max(...entries.map(([key]) => key.length));
  const lines: string[] = [];
  for (const [key, entry] of entries) {
    const label = indent + style.key(key.padEnd(width));
    if (isScalar(entry)) {
      const [first = '', ...rest] = scalarText(entry).split('\n');
      lines.push(`${label}  ${first}`);
      for (const line of rest) lines.push(`${indent}${' '.repeat(width + 2)}${line}`);
    } else if (Array.isArray(entry) && entry.length === 0) {
      lines.push(`${label}  ${style.dim('(none)')}`);
    } else if (Array.isArray(entry) && entry.every(isScalar)) {
      lines.push(`${label}  ${entry.map(scalarText).join(', ')}`);
    } else {
      lines.push(indent + style.key(key));
      lines.push(...block(entry, style, indent + '  '));
    }
  }
  return lines;
}

function list(items: readonly unknown[], style: Style, indent: string): string[] {
  if (items.length === 0) return [indent + style.dim('(none)')];
  if (items.every(isRecord)) return table(items, style, indent);
  return items.flatMap((item) =>
    block(item, style, indent + '- ').map((line, index) => (index === 0 ? line : `  ${line}`)),
  );
}

/** Arrays of objects: one row each, columns in first-seen order, every cell whole. */
function table(rows: readonly Record<string, unknown>[], style: Style, indent: string): string[] {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cells = rows.map((row) => columns.map((column) => cellText(row[column])));
  const widths = columns.map((column, index) =>
    Math.max(column.length, ...cells.map((row) => (row[index] ?? '').length)),
  );
  const line = (values: readonly string[], paint: (text: string) => string = (text) => text): string =>
    indent +
    values
      .map((value, index) => paint(value.padEnd(widths[index] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(columns, style.key), ...cells.map((row) => line(row))];
}

function cellText(value: unknown): string {
  if (value === undefined) return '';
  return isScalar(value) ? scalarText(value) : JSON.stringify(value);
}

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '-';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function isScalar(value: unknown): value is Scalar {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

import { stripVTControlCharacters } from 'node:util';
import { BASE_UNITS, formatUnits, GWEI_DECIMALS, isBaseUnitName, parseUnits } from '../shared/amounts.js';
import { declaredUnitOf, isJsonSchema, schemaProperties, type JsonSchema } from '../shared/json-schema.js';
import type { CliIo } from './io.js';

export type Style = {
  key(text: string): string;
  dim(text: string): string;
  heading(text: string): string;
  error(text: string): string;
  /** An amount in coins, e.g. `1.5 DASH`. */
  amount(text: string): string;
  /** One line of a QR code: dark modules on a light ground, whatever the terminal's own colours. */
  qr(text: string): string;
};

const asIs = (text: string): string => text;

/** No colours: what a pipe, NO_COLOR or --no-color gets. */
const PLAIN_STYLE: Style = { key: asIs, dim: asIs, heading: asIs, error: asIs, amount: asIs, qr: asIs };

/** Whether to colour: `--color` (true) or a terminal, never `--no-color` (false) or NO_COLOR. */
export function colorEnabled(color: boolean | undefined, io: Pick<CliIo, 'env' | 'stdout'>): boolean {
  if (color === false || (io.env['NO_COLOR'] ?? '') !== '') return false;
  return color === true || io.stdout.isTTY === true;
}

/** Colours on a terminal only, and never with NO_COLOR or --no-color; chalk is loaded only then. */
export async function createStyle(enabled: boolean): Promise<Style> {
  if (!enabled) return PLAIN_STYLE;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level: 1 });
  return {
    key: chalk.cyan,
    dim: chalk.dim,
    heading: chalk.bold,
    error: chalk.red,
    amount: chalk.green,
    qr: chalk.black.bgWhiteBright,
  };
}

/**
 * A structured result for people, shaped by the tool's output schema when there is one: objects
 * as aligned `key  value` blocks in the schema's property order, arrays of objects as tables whose
 * columns are the schema's properties, nested values indented, absent (null) fields left out of a
 * block and `-` in a table cell. Nothing is truncated:
 * addresses, txids, hashes and xpubs stay whole. A field whose schema declares its unit (`x-unit`,
 * see `src/shared/json-schema.ts`) reads as coins with the exact base units after them (a gas
 * price in gwei), and a field declared as the same amount in coins (`coins-of`) is folded into that
 * line when it agrees. Nothing is inferred from a field's name. Control
 * characters from the server are shown escaped, never sent to the terminal. A table wider than
 * `options.width` becomes one block per row.
 *
 * @example
 * renderHuman({ address: 'yRd4…', fee_duffs: '226' }, PLAIN_STYLE)
 * // 'address    yRd4…\nfee_duffs  0.00000226 DASH (226 duffs)\n'
 */
export function renderHuman(value: unknown, style: Style, schema?: JsonSchema, options: RenderOptions = {}): string {
  return block(value, schema, { style, root: schema, width: options.width }, '').join('\n') + '\n';
}

export type RenderOptions = {
  /**
   * The terminal's width in columns. A table wider than this is shown as one key/value block per
   * row instead, so that no line wraps; without it, arrays of objects are always tables.
   */
  width?: number | undefined;
};

/**
 * Text from a server made safe for a terminal: C0 and C1 control characters (an ESC could rewrite
 * the screen) and bidirectional overrides (which reorder what is shown) become visible escapes.
 * Newlines and tabs stay unless `oneLine`.
 *
 * @example
 * terminalSafe('a\u001b[2Jb') // 'a\\x1b[2Jb'
 */
export function terminalSafe(text: string, oneLine = false): string {
  return text.replace(UNSAFE_CHARACTER, (char) => {
    if (!oneLine && (char === '\n' || char === '\t')) return char;
    const named = NAMED_ESCAPES[char];
    if (named) return named;
    const code = char.codePointAt(0) ?? 0;
    return code <= 0xff ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`;
  });
}

const UNSAFE_CHARACTER = /[\p{Cc}\p{Bidi_Control}]/gu;
const NAMED_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\t': '\\t', '\r': '\\r' };

function hex(code: number, digits: number): string {
  return code.toString(16).padStart(digits, '0');
}

type Context = { style: Style; root: JsonSchema | undefined; width: number | undefined };

function block(value: unknown, schema: JsonSchema | undefined, context: Context, indent: string): string[] {
  const resolved = schemaFor(schema, value, context.root);
  if (Array.isArray(value)) return list(value, resolved, context, indent);
  if (!isRecord(value)) {
    return scalarText(value, context.style)
      .split('\n')
      .map((line) => indent + line);
  }
  // A name of its own: the narrowing of a parameter does not reach the callbacks below.
  const record = value;
  const fields = fieldsOf(record, resolved, context.root);
  const schemas = new Map(fields.map(({ key, schema: fieldSchema }) => [key, fieldSchema]));
  const { style } = context;
  if (fields.length === 0) return [indent + style.dim('(empty)')];
  const labels = fields.map(({ key }) => terminalSafe(key, true));
  const width = Math.max(...labels.map((label) => label.length));
  const keyed = (position: number, text: string): string =>
    text === ''
      ? indent + style.key(labels[position] ?? '')
      : `${indent}${padVisible(style.key(labels[position] ?? ''), width)}  ${text}`;
  const lines: string[] = [];
  fields.forEach(({ key, value: entry, schema: entrySchema }, position) => {
    const amount = amountText(key, record, schemas, style);
    if (amount !== undefined) {
      lines.push(keyed(position, amount));
    } else if (isScalar(entry)) {
      const [first = '', ...rest] = scalarText(entry, style).split('\n');
      lines.push(keyed(position, first));
      for (const line of rest) lines.push(line === '' ? '' : `${indent}${' '.repeat(width + 2)}${line}`);
    } else if (Array.isArray(entry) && entry.length === 0) {
      lines.push(keyed(position, style.dim('(none)')));
    } else if (Array.isArray(entry) && entry.every(isScalar)) {
      lines.push(keyed(position, inlineList(entry, style)));
    } else {
      lines.push(indent + style.key(labels[position] ?? ''));
      lines.push(...block(entry, entrySchema, context, indent + '  '));
    }
  });
  return lines;
}

function list(items: readonly unknown[], schema: JsonSchema | undefined, context: Context, indent: string): string[] {
  if (items.length === 0) return [indent + context.style.dim('(none)')];
  const itemSchema = isJsonSchema(schema?.['items']) ? schema['items'] : undefined;
  if (items.every(isRecord) && items.every(fitsARow)) {
    const rows = table(items, itemSchema, context, indent);
    const { width } = context;
    if (width === undefined || rows.every((line) => visibleLength(line) <= width)) return rows;
  }
  return items.flatMap((item) =>
    block(item, itemSchema, context, '').map((line, index) =>
      line === '' ? '' : `${indent}${index === 0 ? '- ' : '  '}${line}`,
    ),
  );
}

/**
 * Whether a record shows whole in a table row: its values are one-line scalars or lists of them.
 * A multi-line text (a tool's description) or a nested object (a JSON Schema) would be squeezed
 * into one escaped line: such records are shown as key/value blocks instead.
 */
function fitsARow(record: Record<string, unknown>): boolean {
  const oneLine = (value: unknown): boolean => typeof value !== 'string' || !value.includes('\n');
  return Object.keys(record).every((key) => {
    const value = ownValue(record, key);
    return (
      (isScalar(value) && oneLine(value)) ||
      (Array.isArray(value) && value.every((item) => isScalar(item) && oneLine(item)))
    );
  });
}

/**
 * Arrays of objects: one row each. Columns are the item schema's properties in order, then any
 * other keys the rows have, so every result of a tool has the same columns. Cells are one line
 * and whole; no line ends in padding.
 */
function table(
  rows: readonly Record<string, unknown>[],
  itemSchema: JsonSchema | undefined,
  context: Context,
  indent: string,
): string[] {
  const { style, root } = context;
  const shape = objectShape(schemaFor(itemSchema, rows[0], root), root);
  const schemas = new Map(shape.properties);
  const seen = rows.flatMap((row) => Object.keys(row).filter((key) => ownValue(row, key) !== undefined));
  const columns = [...new Set([...schemas.keys(), ...seen])].filter(
    (column) => !rows.every((row) => repeatsAnAmount(column, row, schemas)),
  );
  const header = columns.map((column) => style.key(terminalSafe(column, true)));
  const cells = rows.map((row) => columns.map((column) => cellText(column, row, schemas, style)));
  const widths = columns.map((_, index) =>
    Math.max(...[header, ...cells].map((line) => visibleLength(line[index] ?? ''))),
  );
  const line = (values: readonly string[]): string =>
    indent +
    values
      .map((value, index) => (index === values.length - 1 ? value : padVisible(value, widths[index] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), ...cells.map(line)];
}

function cellText(column: string, row: Record<string, unknown>, schemas: FieldSchemas, style: Style): string {
  const value = ownValue(row, column);
  if (value === undefined) return '';
  const amount = amountText(column, row, schemas, style);
  if (amount !== undefined) return amount;
  if (isScalar(value)) return value === null ? style.dim('-') : terminalSafe(String(value), true);
  if (Array.isArray(value) && value.length === 0) return style.dim('(none)');
  if (Array.isArray(value) && value.every(isScalar)) return inlineList(value, style);
  return terminalSafe(JSON.stringify(value), true);
}

function inlineList(items: readonly Scalar[], style: Style): string {
  return items.map((item) => (item === null ? style.dim('-') : terminalSafe(String(item), true))).join(', ');
}

function scalarText(value: unknown, style: Style): string {
  return value === null || value === undefined ? style.dim('-') : terminalSafe(String(value));
}

/** The schemas of an object's fields, by name. */
type FieldSchemas = ReadonlyMap<string, JsonSchema | undefined>;

type AmountUnit = {
  /** Digits after the decimal point of one coin (or of one gwei, for a gas price). */
  decimals: number;
  /** The coin, e.g. DASH, ether, gwei or a token's symbol. */
  coin: string;
  /** The base unit, plural and singular. */
  base: readonly [plural: string, singular: string];
  /** What it is a price of (`x-per`: gas, kB), if anything. */
  per?: string | undefined;
};

const MAX_TOKEN_DECIMALS = 255;
const BASE_UNITS_TEXT = /^-?[0-9]+$/;

/** The unit the schema of `record[key]` declares, with a token's decimals and symbol from their fields. */
function amountUnit(key: string, record: Record<string, unknown>, schemas: FieldSchemas): AmountUnit | undefined {
  const declared = declaredUnitOf(schemas.get(key));
  if (declared?.kind === 'base' && isBaseUnitName(declared.unit)) {
    if (declared.unit === 'wei' && declared.per === 'gas') {
      return { decimals: GWEI_DECIMALS, coin: 'gwei', base: BASE_UNITS.wei.names, per: 'gas' };
    }
    const { decimals, coin, names } = BASE_UNITS[declared.unit];
    return {
      decimals,
      coin,
      base: names,
      per: declared.per === undefined ? undefined : terminalSafe(declared.per, true),
    };
  }
  if (declared?.kind !== 'token') return undefined;
  const decimals = ownValue(record, declared.decimalsField);
  if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > MAX_TOKEN_DECIMALS) {
    return undefined;
  }
  const symbol = declared.symbolField === undefined ? undefined : ownValue(record, declared.symbolField);
  return {
    decimals,
    coin: typeof symbol === 'string' && symbol.trim() !== '' ? terminalSafe(symbol, true) : 'tokens',
    base: ['base units', 'base unit'],
  };
}

/** `1.5 ether (1500000000000000000 wei)` for an amount field holding digits; otherwise undefined. */
function amountText(
  key: string,
  record: Record<string, unknown>,
  schemas: FieldSchemas,
  style: Style,
): string | undefined {
  const unit = amountUnit(key, record, schemas);
  const value = ownValue(record, key);
  if (!unit || typeof value !== 'string' || !BASE_UNITS_TEXT.test(value)) return undefined;
  const units = BigInt(value);
  const base = units === 1n || units === -1n ? unit.base[1] : unit.base[0];
  const per = unit.per === undefined ? '' : ` per ${unit.per}`;
  return `${style.amount(`${formatUnits(units, unit.decimals)} ${unit.coin}`)} (${value} ${base})${per}`;
}

/**
 * Whether `record[key]` is declared as another field's amount in coins (`coins-of`) and says no
 * more than that field's line: the same amount, or null beside a null amount. A twin that
 * disagrees is shown, never hidden.
 */
function repeatsAnAmount(key: string, record: Record<string, unknown>, schemas: FieldSchemas): boolean {
  const declared = declaredUnitOf(schemas.get(key));
  if (declared?.kind !== 'coins-of') return false;
  const twin = ownValue(record, key);
  const base = ownValue(record, declared.field);
  if (twin === undefined) return true;
  if (base === null && twin === null) return true;
  const unit = amountUnit(declared.field, record, schemas);
  if (!unit || unit.coin === 'gwei' || typeof base !== 'string' || !BASE_UNITS_TEXT.test(base)) return false;
  return typeof twin === 'string' && parseUnits(twin, unit.decimals) === BigInt(base);
}

type Field = { key: string; value: unknown; schema: JsonSchema | undefined };

/**
 * An object's fields in the schema's order, then the rest in the value's order; coin twins folded,
 * and fields that are absent (null: a balance without a token, a plan not yet sent) left out, so
 * no block fills with rows of `-`. Tables keep their columns, `-` in a cell; `--json` keeps all.
 */
function fieldsOf(
  record: Record<string, unknown>,
  schema: JsonSchema | undefined,
  root: JsonSchema | undefined,
): Field[] {
  const shape = objectShape(schema, root);
  const declared = new Map(shape.properties);
  const keys = [...new Set([...declared.keys(), ...Object.keys(record)])];
  const schemas = new Map(keys.map((key) => [key, declared.get(key) ?? shape.additional]));
  return keys
    .filter((key) => ownValue(record, key) != null && !repeatsAnAmount(key, record, schemas))
    .map((key) => ({ key, value: ownValue(record, key), schema: schemas.get(key) }));
}

type ObjectShape = { properties: [string, JsonSchema][]; additional: JsonSchema | undefined };

/** The properties an object schema declares (with those of its `allOf` members), in order. */
function objectShape(schema: JsonSchema | undefined, root: JsonSchema | undefined, depth = 0): ObjectShape {
  if (!schema || depth > MAX_SCHEMA_DEPTH) return { properties: [], additional: undefined };
  const members = asArray(schema['allOf'])
    .filter(isJsonSchema)
    .map((member) => objectShape(dereference(member, root), root, depth + 1));
  const additional = schema['additionalProperties'];
  return {
    properties: [...schemaProperties(schema), ...members.flatMap((member) => member.properties)],
    additional: isJsonSchema(additional)
      ? additional
      : members.find((member) => member.additional !== undefined)?.additional,
  };
}

const MAX_SCHEMA_DEPTH = 32;

/**
 * The schema that describes `value`'s structure: local `$ref`s followed, and of an `anyOf` or
 * `oneOf` (a nullable field is `anyOf: [X, {type: null}]`) the member that fits the value.
 */
function schemaFor(
  schema: JsonSchema | undefined,
  value: unknown,
  root: JsonSchema | undefined,
  depth = 0,
): JsonSchema | undefined {
  const resolved = dereference(schema, root);
  if (!resolved || depth > MAX_SCHEMA_DEPTH) return undefined;
  const members = [...asArray(resolved['anyOf']), ...asArray(resolved['oneOf'])].filter(isJsonSchema);
  if (members.length === 0) return resolved;
  for (const member of members) {
    const candidate = schemaFor(member, value, root, depth + 1);
    if (candidate && fits(candidate, value)) return candidate;
  }
  return undefined;
}

function fits(schema: JsonSchema, value: unknown): boolean {
  const type = schema['type'];
  const types = Array.isArray(type) ? type : [type];
  if (Array.isArray(value)) return types.includes('array') || 'items' in schema;
  if (isRecord(value)) return types.includes('object') || 'properties' in schema || 'allOf' in schema;
  return true;
}

/** Follows `$ref: "#/…"` (a JSON Pointer into the root schema, e.g. `#/$defs/Row`). */
function dereference(schema: JsonSchema | undefined, root: JsonSchema | undefined): JsonSchema | undefined {
  let current = schema;
  for (let hops = 0; current && typeof current['$ref'] === 'string'; hops++) {
    const ref = current['$ref'];
    if (hops > MAX_SCHEMA_DEPTH || !root || (ref !== '#' && !ref.startsWith('#/'))) return undefined;
    let target: unknown = root;
    for (const token of ref.split('/').slice(1)) {
      const name = decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
      target = isJsonSchema(target) && Object.hasOwn(target, name) ? target[name] : undefined;
    }
    current = isJsonSchema(target) ? target : undefined;
  }
  return current;
}

type Scalar = string | number | boolean | null;

function isScalar(value: unknown): value is Scalar {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function ownValue(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Our own colour codes are the only escapes left after {@link terminalSafe}: they take no room. */
function visibleLength(text: string): number {
  return stripVTControlCharacters(text).length;
}

function padVisible(text: string, width: number): string {
  return text + ' '.repeat(Math.max(0, width - visibleLength(text)));
}

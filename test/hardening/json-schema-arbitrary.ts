/**
 * fast-check arbitraries from a tool's input JSON Schema (as tools/list gives it: the subset
 * z.toJSONSchema writes for our inputs): values the schema accepts, and objects broken in exactly
 * one way, each with the problem it has. Also a small validator for that subset, so a "broken"
 * value is checked to really break the schema.
 *
 * Supported: type (one or a list), enum, const, anyOf, string minLength/maxLength/pattern,
 * integer/number minimum/maximum, boolean, null, array items/minItems/maxItems, object
 * properties/required/additionalProperties/propertyNames, and {} (anything).
 */
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = Record<string, unknown>;

/** Known-good values by property name (a wallet alias, an address of ours …), tried often. */
export type Hints = Readonly<Record<string, readonly Json[]>>;

/** How an argument object was broken, and so what the server must say about it. */
export type Breakage =
  | { kind: 'missing'; key: string }
  | { kind: 'wrong-type'; key: string }
  | { kind: 'out-of-range'; key: string }
  | { kind: 'unknown-key'; key: string }
  | { kind: 'proto-key' };

export type Arguments = { args: Record<string, Json>; breakage: Breakage | undefined };

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function typesOf(schema: Schema): string[] {
  const type = schema['type'];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((entry): entry is string => typeof entry === 'string');
  return [];
}

function properties(schema: Schema): [string, Schema][] {
  const props = schema['properties'];
  if (!isSchema(props)) return [];
  return Object.entries(props).flatMap(([key, value]) => (isSchema(value) ? [[key, value] as [string, Schema]] : []));
}

function required(schema: Schema): string[] {
  const list = schema['required'];
  return Array.isArray(list) ? list.filter((entry): entry is string => typeof entry === 'string') : [];
}

const num = (schema: Schema, key: string): number | undefined =>
  typeof schema[key] === 'number' ? (schema[key] as number) : undefined;

/** Whether `value` satisfies `schema` (the subset above; string lengths in code points, as JSON Schema and zod count). */
export function satisfies(schema: Schema, value: Json): boolean {
  const anyOf = schema['anyOf'];
  if (Array.isArray(anyOf) && !anyOf.some((option) => isSchema(option) && satisfies(option, value))) return false;
  if ('const' in schema && JSON.stringify(schema['const']) !== JSON.stringify(value)) return false;
  const enumeration = schema['enum'];
  if (Array.isArray(enumeration) && !enumeration.some((option) => JSON.stringify(option) === JSON.stringify(value))) {
    return false;
  }
  const types = typesOf(schema);
  if (types.length > 0 && !types.some((type) => hasType(type, value))) return false;
  if (typeof value === 'string') {
    const min = num(schema, 'minLength');
    const max = num(schema, 'maxLength');
    const length = codePoints(value);
    if (min !== undefined && length < min) return false;
    if (max !== undefined && length > max) return false;
    const pattern = schema['pattern'];
    if (typeof pattern === 'string' && !new RegExp(pattern).test(value)) return false;
  }
  if (typeof value === 'number') {
    const min = num(schema, 'minimum');
    const max = num(schema, 'maximum');
    if (min !== undefined && value < min) return false;
    if (max !== undefined && value > max) return false;
  }
  if (Array.isArray(value)) {
    const min = num(schema, 'minItems');
    const max = num(schema, 'maxItems');
    if (min !== undefined && value.length < min) return false;
    if (max !== undefined && value.length > max) return false;
    const items = schema['items'];
    const prefix = prefixItemsOf(schema);
    if (prefix !== undefined) {
      // A tuple (draft 2020-12): each place its own schema; `items: false`, nothing after them.
      if (!prefix.every((item, index) => index >= value.length || satisfies(item, value[index] ?? null))) return false;
      if (items === false && value.length > prefix.length) return false;
      if (isSchema(items) && !value.slice(prefix.length).every((item) => satisfies(items, item))) return false;
    } else if (isSchema(items) && !value.every((item) => satisfies(items, item))) return false;
  }
  if (isJsonObject(value)) {
    const props = new Map(properties(schema));
    if (!required(schema).every((key) => Object.hasOwn(value, key))) return false;
    const additional = schema['additionalProperties'];
    for (const [key, item] of Object.entries(value)) {
      const own = props.get(key);
      if (own) {
        if (!satisfies(own, item)) return false;
      } else if (additional === false) {
        return false;
      } else if (isSchema(additional) && !satisfies(additional, item)) {
        return false;
      }
    }
  }
  return true;
}

function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

function isJsonObject(value: Json): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function hasType(type: string, value: Json): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isJsonObject(value);
    default:
      return false;
  }
}

const anyJson = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>;

/** Strings of every kind: ASCII, any code point (astral, controls), a few nasty fixed ones. */
function anyString(maxLength: number): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        ' ',
        '\u0000',
        '\u202e\u2066',
        '\ud800',
        '👩‍👩‍👧‍👦',
        '0x',
        '-1',
        '1e400',
        'NaN',
        '__proto__',
        "'; DROP TABLE wallets; --",
        '../../etc/passwd',
        '%s%n%x',
      ),
    },
  );
}

/** A value `schema` accepts; `name` picks hints. */
function validValue(schema: Schema, hints: Hints = {}, name?: string): fc.Arbitrary<Json> {
  const generic = genericValid(schema, hints);
  const hinted = (name === undefined ? [] : (hints[name] ?? [])).filter((value) => satisfies(schema, value));
  if (hinted.length === 0) return generic;
  return fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...hinted) }, { weight: 1, arbitrary: generic });
}

function genericValid(schema: Schema, hints: Hints): fc.Arbitrary<Json> {
  const anyOf = schema['anyOf'];
  if (Array.isArray(anyOf)) {
    const options = anyOf
      .filter(isSchema)
      .map((option) => validValue({ ...schema, anyOf: undefined, ...option }, hints));
    return fc.oneof(...options);
  }
  if ('const' in schema) return fc.constant(schema['const'] as Json);
  const enumeration = schema['enum'];
  if (Array.isArray(enumeration)) return fc.constantFrom(...(enumeration as Json[]));
  const types = typesOf(schema);
  if (types.length > 1) return fc.oneof(...types.map((type) => genericValid({ ...schema, type }, hints)));
  switch (types[0]) {
    case 'string':
      return validString(schema);
    case 'integer': {
      const min = num(schema, 'minimum') ?? -(2 ** 53 - 1);
      const max = num(schema, 'maximum') ?? 2 ** 53 - 1;
      return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));
    }
    case 'number': {
      const min = num(schema, 'minimum');
      const max = num(schema, 'maximum');
      return fc.double({
        noNaN: true,
        noDefaultInfinity: true,
        ...(min === undefined ? {} : { min }),
        ...(max === undefined ? {} : { max }),
      });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const prefix = prefixItemsOf(schema);
      if (prefix !== undefined) return fc.tuple(...prefix.map((item) => validValue(item, hints)));
      const items = isSchema(schema['items']) ? validValue(schema['items'], hints) : anyJson;
      const minLength = num(schema, 'minItems') ?? 0;
      const maxLength = Math.min(num(schema, 'maxItems') ?? 4, minLength + 4);
      return fc.array(items, { minLength, maxLength });
    }
    case 'object':
      return validObject(schema, hints);
    default:
      return anyJson;
  }
}

function validString(schema: Schema): fc.Arbitrary<string> {
  const min = num(schema, 'minLength') ?? 0;
  const max = num(schema, 'maxLength') ?? 200;
  const pattern = schema['pattern'];
  const fits = (text: string) => codePoints(text) >= min && codePoints(text) <= max;
  if (typeof pattern === 'string') {
    return fc.stringMatching(new RegExp(pattern), { maxLength: Math.min(max, 80) }).filter(fits);
  }
  const short = anyString(Math.min(max, 40)).filter(fits);
  if (max < 1000) return short;
  // Now and then a value near the limit (a 100 kB message, a 2 MB hex …).
  const long = fc
    .record({
      chunk: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 16 }),
      fill: fc.integer({ min: 1000, max }),
    })
    .map(({ chunk, fill }) => chunk.repeat(Math.ceil(fill / chunk.length)).slice(0, fill))
    .filter(fits);
  return fc.oneof({ weight: 9, arbitrary: short }, { weight: 1, arbitrary: long });
}

/** An object `schema` accepts: every required property, each optional one half the time. */
export function validObject(schema: Schema, hints: Hints = {}): fc.Arbitrary<Record<string, Json>> {
  const props = properties(schema);
  if (props.length === 0) {
    const additional = schema['additionalProperties'];
    if (additional === false) return fc.constant({});
    const values = isSchema(additional) ? validValue(additional, hints) : anyJson;
    return fc.dictionary(
      fc.string({ maxLength: 12 }).filter((key) => key !== '__proto__'),
      values,
      { maxKeys: 3 },
    );
  }
  const shape: Record<string, fc.Arbitrary<Json>> = {};
  for (const [key, value] of props) shape[key] = validValue(value, hints, key);
  const requiredKeys = required(schema).filter((key) => key in shape);
  return fc.record(shape, { requiredKeys }).map((record) => {
    // fc.record builds null-prototype objects; tools get plain ones, keys in schema order.
    const plain: Record<string, Json> = {};
    for (const [key] of props)
      if (Object.hasOwn(record, key)) plain[key] = (record as Record<string, Json>)[key] as Json;
    return plain;
  });
}

/** A value `schema` refuses because of its JSON type. */
function wrongType(schema: Schema): fc.Arbitrary<Json> {
  const candidates: Json[] = ['a string', '', 0, 1.5, -1, true, false, null, [], [1, 'x'], {}, { a: 1 }, '12', 'true'];
  const refused = candidates.filter((value) => !satisfies(schema, value) && typeOfJson(value) !== 'string');
  const refusedStrings = candidates.filter((value) => !satisfies(schema, value));
  const pool = typesOf(schema).includes('string') || schema['enum'] !== undefined ? refused : refusedStrings;
  return fc.constantFrom(...(pool.length > 0 ? pool : [null]));
}

function typeOfJson(value: Json): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/** A value of the right JSON type that `schema` still refuses (too long, off-pattern, out of range); undefined when none. */
function outOfRange(schema: Schema): fc.Arbitrary<Json> | undefined {
  const options: fc.Arbitrary<Json>[] = [];
  const types = typesOf(schema);
  const enumeration = schema['enum'];
  if (types.includes('string') || Array.isArray(enumeration)) {
    const max = num(schema, 'maxLength');
    const min = num(schema, 'minLength');
    if (max !== undefined) {
      options.push(fc.integer({ min: max + 1, max: max + 64 }).map((length) => 'x'.repeat(length)));
      options.push(fc.constant('é'.repeat(Math.max(max + 1, 2 * 1024 * 1024))));
    }
    if (min !== undefined && min > 0) options.push(fc.constant(''));
    if (typeof schema['pattern'] === 'string' || Array.isArray(enumeration)) {
      options.push(anyString(40));
      options.push(fc.constantFrom(' 0', '00', '-1', '1.5', 'Main', 'a b', 'x'.repeat(33), '\u0000', 'ä'));
    }
  }
  if (types.includes('integer') || types.includes('number')) {
    const min = num(schema, 'minimum');
    const max = num(schema, 'maximum');
    if (max !== undefined) options.push(fc.constantFrom(max + 1, 1e300));
    if (min !== undefined) options.push(fc.constantFrom(min - 1, -1e300));
    if (types.includes('integer')) options.push(fc.constantFrom(0.5, 1.000001, 2 ** 53 + 2));
  }
  if (types.includes('array')) {
    const min = num(schema, 'minItems');
    const max = num(schema, 'maxItems');
    if (min !== undefined && min > 0) options.push(fc.constant([]));
    if (max !== undefined && isSchema(schema['items'])) {
      options.push(fc.array(validValue(schema['items']), { minLength: max + 1, maxLength: max + 2 }));
    }
    if (isSchema(schema['items'])) options.push(fc.constant([{ nonsense: true }]));
  }
  if (Array.isArray(schema['anyOf'])) options.push(fc.constantFrom(7, 13, 1e9));
  if (options.length === 0) return undefined;
  return fc.oneof(...options).filter((value) => !satisfies(schema, value));
}

/** A key the object schema does not know. */
function unknownKey(schema: Schema): fc.Arbitrary<string> {
  const known = new Set(properties(schema).map(([key]) => key));
  return fc
    .oneof(
      fc.constantFrom(
        'constructor',
        'toString',
        'hasOwnProperty',
        'valueOf',
        'passphrase',
        'Network',
        'network ',
        'wallet-id',
      ),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 24 }),
      fc.constant('k'.repeat(100_000)),
    )
    .filter((key) => !known.has(key) && key !== '__proto__');
}

/**
 * An argument object for `schema`: valid (breakage undefined) or broken in exactly one way (a
 * required key missing, a value of the wrong type, a value out of range, an unknown key, an own
 * `__proto__` key).
 */
export function argumentsFor(schema: Schema, hints: Hints = {}): fc.Arbitrary<Arguments> {
  const props = properties(schema);
  const base = validObject(schema, hints);
  const valid: fc.Arbitrary<Arguments> = base.map((args) => ({ args, breakage: undefined }));
  const broken: fc.Arbitrary<Arguments>[] = [];
  const needed = required(schema);
  if (needed.length > 0) {
    broken.push(
      fc.record({ args: base, key: fc.constantFrom(...needed) }).map(({ args, key }) => ({
        args: Object.fromEntries(Object.entries(args).filter(([name]) => name !== key)),
        breakage: { kind: 'missing', key },
      })),
    );
  }
  if (props.length > 0) {
    const typed = fc.constantFrom(...props).chain(([key, value]) => wrongType(value).map((wrong) => ({ key, wrong })));
    broken.push(
      fc.record({ args: base, change: typed }).map(({ args, change }) => ({
        args: { ...args, [change.key]: change.wrong },
        breakage: { kind: 'wrong-type', key: change.key },
      })),
    );
    const ranged = props.flatMap(([key, value]) => {
      const arbitrary = outOfRange(value);
      return arbitrary ? [arbitrary.map((bad) => ({ key, bad }))] : [];
    });
    if (ranged.length > 0) {
      broken.push(
        fc.record({ args: base, change: fc.oneof(...ranged) }).map(({ args, change }) => ({
          args: { ...args, [change.key]: change.bad },
          breakage: { kind: 'out-of-range', key: change.key },
        })),
      );
    }
  }
  if (schema['additionalProperties'] === false) {
    broken.push(
      fc.record({ args: base, key: unknownKey(schema), value: anyJson }).map(({ args, key, value }) => ({
        args: { ...args, [key]: value },
        breakage: { kind: 'unknown-key', key },
      })),
    );
  }
  broken.push(
    fc.record({ args: base, inner: validObject(schema, hints) }).map(({ args, inner }) => {
      const withProto = { ...args };
      // An own property named __proto__, as JSON.parse makes one (an assignment would set the prototype).
      Object.defineProperty(withProto, '__proto__', {
        value: inner,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      return { args: withProto, breakage: { kind: 'proto-key' } };
    }),
  );
  return fc.oneof({ weight: 1, arbitrary: valid }, { weight: 1, arbitrary: fc.oneof(...broken) });
}

/** A tuple's schemas, one a place (`prefixItems`, as zod writes `z.tuple`), or undefined. */
function prefixItemsOf(schema: Schema): Schema[] | undefined {
  const prefix = schema['prefixItems'];
  return Array.isArray(prefix) && prefix.every(isSchema) ? prefix : undefined;
}

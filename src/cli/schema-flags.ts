import {
  COMPLETES_KEYWORD,
  isJsonSchema,
  isSecretSchema,
  requiredProperties,
  schemaProperties,
  type JsonSchema,
} from '../shared/json-schema.js';
import { propertyToFlag } from '../shared/naming.js';
import { GLOBAL_FLAGS } from './global-flags.js';

/** How a flag's text becomes a JSON value. `json` parses the text as JSON (objects, unions, anything untyped). */
type FlagKind = 'string' | 'number' | 'integer' | 'boolean' | 'json';

export type FlagSpec = {
  /** The schema property this flag fills. */
  property: string;
  /** The flag name without dashes: `wallet-id`. */
  flag: string;
  kind: FlagKind;
  /** Repeat the flag for each element. */
  array: boolean;
  /** For `json`: text that is not JSON is sent as a string (the schema allows strings). */
  textFallback: boolean;
  /** For `json`: the schema allows a boolean, so a bare flag means true and `--no-x` false. */
  acceptsBoolean: boolean;
  /** For `json` objects (or an array's object items): their property names, `{oldText, newText}`, for help. */
  objectShape?: string | undefined;
  /** Allowed values (enum or const), in the schema's types. */
  choices: readonly (string | number | boolean)[] | undefined;
  required: boolean;
  /** `null` is accepted (the text `null`). */
  nullable: boolean;
  hasDefault: boolean;
  defaultValue: unknown;
  description: string;
  /** Never taken inline: `--<flag>-stdin`, `--<flag>-file` or a hidden prompt instead. */
  secret: boolean;
  /** What the value completes to in a shell, as the schema declares it (`x-completes`): `evm-network`, `evm-account`. */
  completes?: string | undefined;
  /** The schema's `examples` that are strings: what completion offers besides the saved values. */
  examples?: readonly string[] | undefined;
};

/**
 * Flags the CLI itself takes on every tool command (the global flags, their aliases, `--args-json`);
 * a property that would be named like one gets `--arg-` in front.
 */
const RESERVED_FLAGS: readonly string[] = [
  'args-json',
  ...GLOBAL_FLAGS.flatMap((flag) => [flag.name, ...(flag.alias ? [flag.alias] : [])]),
];

/**
 * One flag per top-level property of a tool's input schema. Local `$ref`s are followed,
 * `anyOf`/`oneOf` with `null` become nullable, other unions and objects take JSON.
 *
 * @example
 * flagsFromSchema({ type: 'object', properties: { wallet_id: { type: 'string', description: 'Wallet' } }, required: ['wallet_id'] })
 * // [{ property: 'wallet_id', flag: 'wallet-id', kind: 'string', required: true, … }]
 */
export function flagsFromSchema(inputSchema: JsonSchema): FlagSpec[] {
  const required = new Set(requiredProperties(inputSchema));
  const properties = schemaProperties(inputSchema).map(([property, raw]) => {
    const schema = resolveRef(raw, inputSchema);
    return { property, schema, secret: isSecretSchema(schema) };
  });
  // A secret's --x-stdin and --x-file are claimed first, so no other property can shadow them.
  const taken = new Set([
    ...RESERVED_FLAGS,
    ...properties
      .filter(({ secret }) => secret)
      .flatMap(({ property }) => [`${propertyToFlag(property)}-stdin`, `${propertyToFlag(property)}-file`]),
  ]);
  const specs: FlagSpec[] = [];
  for (const { property, schema, secret } of properties) {
    const shape = shapeOf(schema, inputSchema);
    let flag = propertyToFlag(property);
    // `--no-x` is how every boolean is negated, so no flag may itself start with `no-`.
    if (taken.has(flag) || flag.startsWith('no-')) flag = `arg-${flag}`;
    while (taken.has(flag)) flag = `${flag}-`;
    taken.add(flag);
    specs.push({
      property,
      flag,
      ...shape,
      acceptsBoolean: shape.kind === 'json' && !shape.array && allowsBoolean(schema, inputSchema),
      objectShape: shape.kind === 'json' ? objectShapeOf(schema, inputSchema) : undefined,
      required: required.has(property),
      hasDefault: 'default' in schema,
      defaultValue: schema['default'],
      description: typeof schema['description'] === 'string' ? schema['description'] : '',
      secret,
      completes: typeof schema[COMPLETES_KEYWORD] === 'string' ? schema[COMPLETES_KEYWORD] : undefined,
      examples: Array.isArray(schema['examples'])
        ? schema['examples'].filter((example): example is string => typeof example === 'string')
        : undefined,
    });
  }
  return specs;
}

type Shape = Pick<FlagSpec, 'kind' | 'array' | 'choices' | 'nullable' | 'textFallback'>;

function shapeOf(schema: JsonSchema, root: JsonSchema): Shape {
  const allOf = schema['allOf'];
  if (Array.isArray(allOf) && allOf.length === 1 && isJsonSchema(allOf[0])) {
    const { allOf: _unwrapped, ...siblings } = schema;
    return shapeOf({ ...resolveRef(allOf[0], root), ...siblings }, root);
  }
  const union = nonNullMembers(schema, root);
  if (union) {
    const [only, ...others] = union.members;
    if (only && others.length === 0) {
      const shape = shapeOf(only, root);
      return { ...shape, nullable: union.nullable || shape.nullable };
    }
    // A union of constants (zod's z.union([z.literal(12), z.literal(24)])) is a choice.
    const constants = union.members.map((member) => ('const' in member ? choicesOf(member) : undefined));
    if (constants.every((values) => values !== undefined && values.length === 1)) {
      const choices = constants.flatMap((values) => values ?? []);
      const kind = kindOfValues(choices);
      if (kind !== 'json') return { kind, array: false, choices, nullable: union.nullable, textFallback: false };
    }
    const textFallback = union.members.some((member) => {
      const types = typesOf(member);
      return types.length === 0 || types.includes('string');
    });
    return { kind: 'json', array: false, choices: undefined, nullable: union.nullable, textFallback };
  }
  const types = typesOf(schema);
  const nullable = types.includes('null');
  const concrete = types.filter((type) => type !== 'null');
  const choices = choicesOf(schema);
  if (concrete.length !== 1) {
    const kind = concrete.length === 0 && choices ? kindOfValues(choices) : 'json';
    const textFallback = kind === 'json' && (concrete.length === 0 || concrete.includes('string'));
    return { kind, array: false, choices, nullable, textFallback };
  }
  const [type] = concrete;
  if (type === 'array') {
    const items = isJsonSchema(schema['items']) ? resolveRef(schema['items'], root) : {};
    const item = shapeOf(items, root);
    return item.array
      ? { kind: 'json', array: true, choices: undefined, nullable, textFallback: false }
      : { ...item, array: true, nullable };
  }
  const kind: FlagKind =
    type === 'string' || type === 'number' || type === 'integer' || type === 'boolean' ? type : 'json';
  return { kind, array: false, choices, nullable, textFallback: false };
}

/** How many property names an object's shape shows in help before `…`. */
const SHAPE_NAMES = 4;

/** `{a, b}` for an object schema (or an array of them): what a JSON value of the flag looks like. */
function objectShapeOf(schema: JsonSchema, root: JsonSchema): string | undefined {
  const items = isJsonSchema(schema['items']) ? resolveRef(schema['items'], root) : undefined;
  const target = items ?? schema;
  const names = schemaProperties(target).map(([name]) => name);
  if (names.length === 0) return undefined;
  const shown = names.slice(0, SHAPE_NAMES).join(', ');
  return `{${shown}${names.length > SHAPE_NAMES ? ', …' : ''}}`;
}

/** Whether a value of the schema (or of one of its union's members) may be a boolean. */
function allowsBoolean(schema: JsonSchema, root: JsonSchema): boolean {
  if (typesOf(schema).includes('boolean')) return true;
  const union = schema['anyOf'] ?? schema['oneOf'];
  return (
    Array.isArray(union) &&
    union.filter(isJsonSchema).some((member) => typesOf(resolveRef(member, root)).includes('boolean'))
  );
}

/** For `anyOf`/`oneOf`: the members other than `{type: "null"}`, and whether null was one. */
function nonNullMembers(
  schema: JsonSchema,
  root: JsonSchema,
): { members: JsonSchema[]; nullable: boolean } | undefined {
  const union = schema['anyOf'] ?? schema['oneOf'];
  if (!Array.isArray(union)) return undefined;
  const members = union.filter(isJsonSchema).map((member) => resolveRef(member, root));
  const nonNull = members.filter((member) => member['type'] !== 'null');
  return { members: nonNull, nullable: nonNull.length < members.length };
}

function typesOf(schema: JsonSchema): string[] {
  const type = schema['type'];
  if (typeof type === 'string') return [type];
  if (Array.isArray(type)) return type.filter((entry): entry is string => typeof entry === 'string');
  return [];
}

function choicesOf(schema: JsonSchema): FlagSpec['choices'] {
  const values = 'const' in schema ? [schema['const']] : schema['enum'];
  if (!Array.isArray(values)) return undefined;
  const scalars = values.filter(
    (value): value is string | number | boolean =>
      typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean',
  );
  return scalars.length > 0 ? scalars : undefined;
}

function kindOfValues(values: readonly (string | number | boolean)[]): FlagKind {
  if (values.every((value) => typeof value === 'string')) return 'string';
  if (values.every((value) => typeof value === 'boolean')) return 'boolean';
  if (values.every((value) => Number.isInteger(value))) return 'integer';
  if (values.every((value) => typeof value === 'number')) return 'number';
  return 'json';
}

/** Follows a local `$ref` (`#/$defs/X`, `#/definitions/X`) one hop at a time; others stay as they are. */
function resolveRef(schema: JsonSchema, root: JsonSchema, depth = 0): JsonSchema {
  const ref = schema['$ref'];
  if (typeof ref !== 'string' || depth > 16) return schema;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  const table = match ? root[match[1] ?? ''] : undefined;
  const target = match && isJsonSchema(table) ? table[decodeURIComponent(match[2] ?? '')] : undefined;
  if (!isJsonSchema(target)) return schema;
  const { $ref: _ignored, ...siblings } = schema;
  return { ...resolveRef(target, root, depth + 1), ...siblings };
}

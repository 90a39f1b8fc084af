/** A JSON Schema document, as tools/list carries it: plain JSON, read defensively. */
export type JsonSchema = { readonly [keyword: string]: unknown };

export function isJsonSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema's `properties`, or none. */
export function schemaProperties(schema: JsonSchema): [string, JsonSchema][] {
  const properties = schema['properties'];
  if (!isJsonSchema(properties)) return [];
  return Object.entries(properties).filter((entry): entry is [string, JsonSchema] => isJsonSchema(entry[1]));
}

export function requiredProperties(schema: JsonSchema): string[] {
  const required = schema['required'];
  return Array.isArray(required) ? required.filter((name): name is string => typeof name === 'string') : [];
}

/**
 * A secret field (a mnemonic, a private key, a passphrase): JSON Schema marks it with
 * `format: "password"` or `writeOnly: true`, on the field itself or on what it is made of (a
 * nullable secret is `anyOf: [{format: "password"}, {type: "null"}]`; a list of keys has secret
 * `items`; an object holding a secret property is itself secret). Secrets never travel through
 * argv or logs.
 */
export function isSecretSchema(schema: JsonSchema): boolean {
  if (schema['format'] === 'password' || schema['writeOnly'] === true) return true;
  const properties = schema['properties'];
  const nested = [
    schema['items'],
    schema['additionalProperties'],
    ...(isJsonSchema(properties) ? Object.values(properties) : []),
    ...['anyOf', 'oneOf', 'allOf'].flatMap((key) => asArray(schema[key])),
  ];
  return nested.some((member) => isJsonSchema(member) && isSecretSchema(member));
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * The JSON Schema keyword that declares what an amount field counts (zod: `.meta({ 'x-unit': … })`,
 * carried by `z.toJSONSchema`; `src/tools/fields.ts` declares it for the shared amount types):
 * - `"duffs"`, `"wei"` or `"gwei"`: base units of the chain's coin, in digits (a price per
 *   something names it in `x-per`: `"gas"` for a gas price, which people read in gwei);
 * - `{ "decimals": "<field>", "symbol": "<field>" }`: a token's base units, its decimals (and
 *   symbol) in those sibling fields;
 * - `{ "token": "<field>" }`: base units of the token whose contract that sibling field names,
 *   decimals unknown to the schema;
 * - `{ "coins-of": "<field>" }`: the amount of that sibling field again, in coins (decimal).
 * Clients read units from here, never from a field's name.
 */
export const UNIT_KEYWORD = 'x-unit';

/**
 * The JSON Schema keyword that declares what kind of value a string field takes, for shell
 * completion: `"evm-network"` (the field's `examples`, the built-in networks, and the ones in
 * config.json) or `"evm-account"` (the aliases of the keystore's EVM accounts). The CLI's
 * completion scripts offer the local values from `<data dir>/cache/completion-values.tsv`; a
 * field's name decides nothing.
 */
export const COMPLETES_KEYWORD = 'x-completes';
export const PER_KEYWORD = 'x-per';

export type DeclaredUnit =
  | { kind: 'base'; unit: string; per: string | undefined }
  | { kind: 'token'; decimalsField: string; symbolField: string | undefined }
  | { kind: 'token-of'; tokenField: string }
  | { kind: 'coins-of'; field: string };

/** The unit a field's schema declares (on itself or on a member of its nullable union), if any. */
export function declaredUnitOf(schema: JsonSchema | undefined): DeclaredUnit | undefined {
  if (!schema) return undefined;
  const declared = schema[UNIT_KEYWORD];
  if (typeof declared === 'string') {
    const per = schema[PER_KEYWORD];
    return { kind: 'base', unit: declared, per: typeof per === 'string' ? per : undefined };
  }
  if (isJsonSchema(declared)) {
    const { decimals, symbol, token } = declared;
    const coinsOf = declared['coins-of'];
    if (typeof decimals === 'string') {
      return { kind: 'token', decimalsField: decimals, symbolField: typeof symbol === 'string' ? symbol : undefined };
    }
    if (typeof token === 'string') return { kind: 'token-of', tokenField: token };
    if (typeof coinsOf === 'string') return { kind: 'coins-of', field: coinsOf };
    return undefined;
  }
  for (const key of ['anyOf', 'oneOf']) {
    for (const member of asArray(schema[key])) {
      const unit = isJsonSchema(member) ? declaredUnitOf(member) : undefined;
      if (unit) return unit;
    }
  }
  return undefined;
}

/** The sibling fields a declared unit names. */
export function fieldsNamedBy(unit: DeclaredUnit): string[] {
  switch (unit.kind) {
    case 'base':
      return [];
    case 'token':
      return [unit.decimalsField, ...(unit.symbolField === undefined ? [] : [unit.symbolField])];
    case 'token-of':
      return [unit.tokenField];
    case 'coins-of':
      return [unit.field];
  }
}

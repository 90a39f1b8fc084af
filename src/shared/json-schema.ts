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

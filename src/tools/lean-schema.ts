import type { z } from 'zod';
import { COMPLETES_KEYWORD, isJsonSchema, PER_KEYWORD, UNIT_KEYWORD, type JsonSchema } from '../shared/json-schema.js';

/**
 * The JSON Schema forms of a tool's input. zod's conversion is exact and verbose; what every agent
 * pays for in `tools/list` is the lean form, and the exact one (with the long field descriptions)
 * comes from `tool_describe`.
 */

/** Short descriptions, by the full description they stand for (see {@link describedWithBrief}). */
const BRIEFS = new Map<string, string>();

/**
 * `schema.describe(description)`, with a short form for the lean list (`''`: none, when the field's
 * name, type and values say it all). The brief belongs to that
 * description: a tool that describes the field again (`WalletId.describe('…')`) gets the first
 * sentence of its own text instead, never a brief written for another meaning.
 *
 * @example
 * export const WalletId = describedWithBrief(z.string(), 'The wallet: its alias (e.g. main) or …', 'Wallet alias or fingerprint');
 */
export function describedWithBrief<T extends z.ZodType>(schema: T, description: string, brief: string): T {
  BRIEFS.set(description, brief);
  return schema.describe(description);
}

/** The longest field description of the lean form. */
export const BRIEF_MAX_LENGTH = 40;

/** Keywords whose value is one schema, an array of schemas, or a map of schemas. */
const SCHEMA_VALUED = new Set(['items', 'additionalProperties', 'propertyNames', 'not', 'contains']);
const SCHEMA_ARRAYS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions']);

/**
 * Keywords the lean form leaves out: the dialect (draft 2020-12 is MCP's default), the length,
 * size and numeric bounds, the patterns and the refusal of unknown keys. The server checks every one of them
 * and names the field in its INVALID_PARAM answer; the descriptions say what a value looks like
 * ("in digits"), and tool_describe gives the exact schema. Declared units (`x-unit`, `x-per`) are
 * for clients that render amounts or convert typed coins (our CLI takes them from tool_describe);
 * an agent reads the unit in the field's brief, so the budget does not pay for them twice. What a
 * field completes to (`x-completes`, with its `examples`) is for the CLI's shell completion; the
 * descriptions name the examples too.
 */
const LEAN_DROPPED = new Set([
  '$schema',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'pattern',
  'propertyNames',
  'minimum',
  'maximum',
  UNIT_KEYWORD,
  PER_KEYWORD,
  COMPLETES_KEYWORD,
  'examples',
]);

/**
 * The lean form of a schema: without the keywords above, or a `type` beside an `enum`; each description cut to its brief (the
 * brief declared with it, else its first sentence). What is left still says every field, its
 * type, its allowed values, its default and what is required; the server validates the rest.
 */
export function leanSchema(schema: JsonSchema): JsonSchema {
  const lean = mapSchema(schema, (node) => {
    const lean: Record<string, unknown> = {};
    for (const [keyword, value] of Object.entries(node)) {
      if (LEAN_DROPPED.has(keyword)) continue;
      // false: unknown keys are refused (by the server, naming them); {}: anything, as without it.
      if (keyword === 'additionalProperties' && (value === false || isEmptySchema(value))) continue;
      if (keyword === 'type' && Array.isArray(node['enum'])) continue;
      if (keyword === 'description' && typeof value === 'string') {
        const brief = briefOf(node);
        if (brief !== '') lean[keyword] = brief;
        continue;
      }
      // An optional flag is off when absent: saying so adds nothing.
      if (keyword === 'default' && value === false && node['type'] === 'boolean') continue;
      lean[keyword] = value;
    }
    return lean;
  });
  // Only the arguments themselves keep a description: the parts of an object or list argument
  // are named in its own (tool_describe has theirs).
  const properties = lean['properties'];
  if (!isJsonSchema(properties)) return lean;
  const undescribed = (node: JsonSchema): JsonSchema => {
    const { description: _description, ...rest } = node;
    return rest;
  };
  return {
    ...lean,
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, argument]) => [
        name,
        isJsonSchema(argument) ? mapChildren(argument, (part) => mapSchema(part, undescribed)) : argument,
      ]),
    ),
  };
}

/** A field's short description: the brief declared with its description, else its first sentence. */
export function briefOf(node: JsonSchema): string {
  const description = typeof node['description'] === 'string' ? node['description'] : '';
  const brief = BRIEFS.get(description);
  if (brief !== undefined) return brief;
  const end = firstSentenceEnd(description);
  return end < 0 ? description : description.slice(0, end);
}

/** Where the first sentence ends (a `.` or `;` before a space or the end, not that of "e.g."). */
function firstSentenceEnd(text: string): number {
  for (const match of text.matchAll(/[.;](?=\s|$)/g)) {
    if (!/\b(e\.g|i\.e)$/.test(text.slice(0, match.index))) return match.index;
  }
  return -1;
}

function isEmptySchema(value: unknown): boolean {
  return isJsonSchema(value) && Object.keys(value).length === 0;
}

/** Applies `change` to every schema node, bottom-up, keeping property names apart from keywords. */
function mapSchema(schema: JsonSchema, change: (node: JsonSchema) => JsonSchema): JsonSchema {
  return change(mapChildren(schema, (child) => mapSchema(child, change)));
}

/** The schema with each of its direct subschemas replaced by `map(subschema)`. */
function mapChildren(schema: JsonSchema, map: (child: JsonSchema) => JsonSchema): JsonSchema {
  const mapped: Record<string, unknown> = {};
  for (const [keyword, value] of Object.entries(schema)) {
    if (SCHEMA_VALUED.has(keyword) && isJsonSchema(value)) mapped[keyword] = map(value);
    else if (SCHEMA_ARRAYS.has(keyword) && Array.isArray(value))
      mapped[keyword] = value.map((member: unknown) => (isJsonSchema(member) ? map(member) : member));
    else if (SCHEMA_MAPS.has(keyword) && isJsonSchema(value))
      mapped[keyword] = Object.fromEntries(
        Object.entries(value).map(([name, member]) => [name, isJsonSchema(member) ? map(member) : member]),
      );
    else mapped[keyword] = value;
  }
  return mapped;
}

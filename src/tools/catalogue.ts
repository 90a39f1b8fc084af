import { z } from 'zod';
import { isBaseUnitName } from '../shared/amounts.js';
import {
  declaredUnitOf,
  fieldsNamedBy,
  isSecretSchema,
  isJsonSchema,
  schemaProperties,
  type JsonSchema,
} from '../shared/json-schema.js';
import { isValidToolName, toolDomain, toolNameToCommand } from '../shared/naming.js';
import { COMPACT_GROUPS, COMPACT_META_TOOL } from './compact-groups.js';
import type { AnyTool, ToolAnnotations } from './define.js';
import type { Profile } from '../shared/profiles.js';
import { BRIEF_MAX_LENGTH, briefOf, leanSchema } from './lean-schema.js';
import { recordedSchemas, type RecordedSchemas } from '../startup/schema-record.js';

const SUMMARY_MAX_LENGTH = 60;

/** Everything there is to know about one tool, as `tool_describe` returns it. */
export type ToolDescription = {
  name: string;
  title: string;
  summary: string;
  description: string;
  command: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolAnnotations;
  localOnly: boolean;
  /** The output field with a receive address (shown as a QR code by the CLI), if any. */
  receiveAddressField: string | undefined;
  /** The input field that makes the tool only plan (a dry run), if any. */
  dryRunField: string | undefined;
  /** The boolean output field that says whether the tool's check passed, if any. */
  checkField: string | undefined;
};

const ANNOTATION_KEYS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;
const JSON_SCHEMA_TARGET = 'draft-2020-12';
const descriptions = new WeakMap<AnyTool, ToolDescription>();
const leanInputs = new WeakMap<AnyTool, JsonSchema>();

/** A tool's input or output schema as JSON Schema, by zod's own conversion (the one the MCP SDK uses). */
function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  return z.toJSONSchema(schema, { target: JSON_SCHEMA_TARGET, io }) as JsonSchema;
}

/**
 * A tool's schemas as its build converted them, in the bundle (src/startup/schema-record.ts: converting every
 * tool's was ~12 ms of `wallet serve`'s first tools/list); undefined elsewhere, where they are
 * converted here.
 */
function recordedOf(tool: AnyTool): RecordedSchemas[string] | undefined {
  return schemaRecordDigest === undefined ? undefined : recordedSchemas(schemaRecordDigest)?.[tool.name];
}

/** The full description of a tool, computed once per tool. */
export function describeTool(tool: AnyTool): ToolDescription {
  let description = descriptions.get(tool);
  if (!description) {
    const recorded = recordedOf(tool);
    description = {
      name: tool.name,
      title: tool.title,
      summary: tool.summary,
      description: tool.description,
      command: toolNameToCommand(tool.name),
      inputSchema: recorded?.input ?? toJsonSchema(tool.input, 'input'),
      outputSchema: recorded?.output ?? toJsonSchema(tool.output, 'output'),
      annotations: tool.annotations,
      localOnly: tool.localOnly === true,
      receiveAddressField: tool.receiveAddressField,
      dryRunField: tool.dryRunField,
      checkField: tool.checkField,
    };
    descriptions.set(tool, description);
  }
  return description;
}

/** The input schema as the default profile lists it: lean (see {@link leanSchema}), computed once per tool. */
export function leanInputSchema(tool: AnyTool): JsonSchema {
  let lean = leanInputs.get(tool);
  if (!lean) {
    lean = recordedOf(tool)?.lean ?? leanSchema(toJsonSchema(tool.input, 'input'));
    leanInputs.set(tool, lean);
  }
  return lean;
}

/** Whether a tool's compact group is declared and of its own domain (the meta tools': wallet_meta). */
function groupProblems(tool: AnyTool): string[] {
  if (!Object.hasOwn(COMPACT_GROUPS, tool.group)) {
    return [
      `group '${tool.group}' is not declared in src/tools/compact-groups.ts: join one of ${Object.keys(COMPACT_GROUPS).join(', ')}`,
    ];
  }
  const domain = toolDomain(tool.name);
  if (domain === 'meta') {
    return tool.group === COMPACT_META_TOOL
      ? []
      : [`group '${tool.group}': a meta tool's group is ${COMPACT_META_TOOL}`];
  }
  return tool.group.startsWith(`${domain}_`)
    ? []
    : [`group '${tool.group}' is not of the ${domain} domain: join a ${domain}_… group`];
}

/**
 * What is wrong with a tool definition, one sentence each; empty when it is sound. The
 * registry refuses a tool with any problem, so a bad definition fails at load and in tests.
 */
export function definitionProblems(tool: AnyTool): string[] {
  const problems: string[] = [];
  if (!isValidToolName(tool.name)) problems.push('name must match domain_object_action (lower snake case, 3+ parts)');
  if (!tool.title.trim()) problems.push('title is empty');
  const summary = tool.summary;
  if (!summary.trim()) problems.push('summary is empty');
  if (summary.length > SUMMARY_MAX_LENGTH) {
    problems.push(`summary is ${summary.length} characters (at most ${SUMMARY_MAX_LENGTH})`);
  }
  if (/\n/.test(summary)) problems.push('summary must be one line');
  if (!tool.description.trim()) problems.push('description is empty');
  problems.push(...groupProblems(tool));
  for (const key of ANNOTATION_KEYS) {
    if (typeof tool.annotations[key] !== 'boolean') problems.push(`annotation ${key} is not set`);
  }
  if (tool.annotations.readOnlyHint && tool.annotations.destructiveHint) {
    problems.push('a read-only tool cannot be destructive');
  }
  if (tool.annotations.destructiveHint && typeof tool.audit !== 'function') {
    problems.push('a destructive tool must declare audit (the fields of its audit-log line)');
  }
  if (tool.annotations.destructiveHint && tool.consent === undefined) {
    problems.push("a destructive tool must declare consent ('policy' or 'human': what serve needs before it runs)");
  }
  if (tool.precheck !== undefined && (tool.consent === undefined || tool.dryRunField !== undefined)) {
    problems.push('precheck is for a tool that needs consent and has no dry run (a dry run checks already)');
  }
  if (tool.consent !== undefined && tool.annotations.readOnlyHint) {
    problems.push('a read-only tool needs no consent');
  }
  if (tool.consent !== undefined && typeof tool.audit !== 'function') {
    problems.push('a tool that needs consent must declare audit (its approval shows those fields)');
  }
  if (tool.outcome !== undefined && !tool.annotations.destructiveHint && tool.consent === undefined) {
    problems.push(
      `outcome ${typeof tool.outcome === 'function' ? '(a function)' : tool.outcome} is for the audit line, which only a destructive tool or one that needs consent has`,
    );
  }
  let input: JsonSchema | undefined;
  let output: JsonSchema | undefined;
  try {
    ({ inputSchema: input, outputSchema: output } = describeTool(tool));
  } catch (error) {
    problems.push(`schemas do not convert to JSON Schema: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (input) {
    if (input['type'] !== 'object') problems.push('input must be an object schema');
    if (input['additionalProperties'] !== false)
      problems.push('input must be z.strictObject (unknown keys are mistakes)');
    for (const path of undescribedFields(input)) problems.push(`input field ${path} has no description`);
    problems.push(...unitProblems(input, 'input'));
    const dryRun = tool.dryRunField;
    if (dryRun !== undefined) {
      const field = schemaProperties(input).find(([name]) => name === dryRun)?.[1];
      const required = ((input['required'] as string[] | undefined) ?? []).includes(dryRun);
      if (!field || field['type'] !== 'boolean' || required) {
        problems.push(`dryRunField ${dryRun} is not an optional boolean input field`);
      }
    }
    // Local-only tools are never served, so never listed lean.
    for (const [path, brief] of tool.localOnly === true ? [] : longBriefs(leanInputSchema(tool))) {
      problems.push(
        `input field ${path}: its brief is ${brief.length} characters (at most ${BRIEF_MAX_LENGTH}); shorten its first sentence or give it a brief (describedWithBrief)`,
      );
    }
    const secrets = secretFields(input);
    if (secrets.length > 0 && tool.localOnly !== true) {
      problems.push(`input field ${secrets.join(', ')} is secret, so the tool must be localOnly`);
    }
  }
  if (output) {
    if (output['type'] !== 'object') problems.push('output must be an object schema');
    for (const path of undescribedFields(output)) problems.push(`output field ${path} has no description`);
    problems.push(...unitProblems(output, 'output'));
    const field = tool.receiveAddressField;
    if (field !== undefined && !schemaProperties(output).some(([name]) => name === field)) {
      problems.push(`receiveAddressField ${field} is not an output field`);
    }
    const check = tool.checkField;
    if (check !== undefined) {
      const field = schemaProperties(output).find(([name]) => name === check)?.[1];
      if (field?.['type'] !== 'boolean' || !((output['required'] as string[] | undefined) ?? []).includes(check)) {
        problems.push(`checkField ${check} is not a required boolean output field`);
      }
    }
    const fee = tool.feeField;
    if (fee !== undefined) {
      const unit = declaredUnitOf(schemaProperties(output).find(([name]) => name === fee.field)?.[1]);
      if (unit?.kind !== 'base' || !isBaseUnitName(unit.unit)) {
        problems.push(`feeField ${fee.field} is not an output field declaring duffs or wei`);
      }
      if (tool.dryRunField === undefined) problems.push('feeField needs a dryRunField (the fee is read from the plan)');
      const cap = fee.cap;
      const capped = input !== undefined && schemaProperties(input).some(([name]) => name === cap);
      if (cap !== undefined && (unit?.kind !== 'base' || !cap.endsWith(`_${unit.unit}`) || !capped)) {
        problems.push(`feeField cap ${cap} is not an input field in the fee's unit`);
      }
    }
  }
  return problems;
}

/**
 * A field whose name says "amount" (…_duffs, …_wei, …_dash, …_eth, fee, amount, value, balance):
 * it must declare its unit, since clients render and convert amounts from declarations alone.
 */
const AMOUNT_LOOKING = /(^|_)(duffs|wei|gwei|dash|eth|ether|fee|amount|value|balance)$/;

/** Amount fields without a declared unit, and declared units that are unknown or name absent fields. */
function unitProblems(schema: JsonSchema, side: 'input' | 'output', prefix = ''): string[] {
  const problems: string[] = [];
  const properties = schemaProperties(schema);
  const siblings = new Set(properties.map(([name]) => name));
  for (const [name, property] of properties) {
    const path = prefix + name;
    const unit = declaredUnitOf(property);
    if (!unit && AMOUNT_LOOKING.test(name)) {
      problems.push(
        `${side} field ${path} looks like an amount but declares no unit (x-unit: use Duffs, Wei, DuffsAmount, WeiAmount, tokenUnits or coinsOf from fields.ts)`,
      );
    }
    if (unit?.kind === 'base' && !isBaseUnitName(unit.unit)) {
      problems.push(`${side} field ${path} declares an unknown unit ${unit.unit} (duffs, wei or gwei)`);
    }
    for (const named of unit ? fieldsNamedBy(unit) : []) {
      if (!siblings.has(named))
        problems.push(`${side} field ${path} names ${named} in its unit, which is not a field beside it`);
    }
    for (const nested of objectMembers(property)) problems.push(...unitProblems(nested, side, `${path}.`));
  }
  return problems;
}

function undescribedFields(schema: JsonSchema, prefix = ''): string[] {
  const missing: string[] = [];
  for (const [name, property] of schemaProperties(schema)) {
    const path = prefix + name;
    if (typeof property['description'] !== 'string' || !property['description'].trim()) missing.push(path);
    for (const nested of objectMembers(property)) missing.push(...undescribedFields(nested, `${path}.`));
  }
  return missing;
}

/** Fields whose lean description is too long for the default profile's budget. */
function longBriefs(lean: JsonSchema, prefix = ''): [string, string][] {
  const found: [string, string][] = [];
  for (const [name, property] of schemaProperties(lean)) {
    const brief = briefOf(property);
    if (brief.length > BRIEF_MAX_LENGTH) found.push([prefix + name, brief]);
    for (const nested of objectMembers(property)) found.push(...longBriefs(nested, `${prefix}${name}.`));
  }
  return found;
}

function secretFields(schema: JsonSchema, prefix = ''): string[] {
  const found: string[] = [];
  for (const [name, property] of schemaProperties(schema)) {
    if (isSecretSchema(property)) found.push(prefix + name);
    for (const nested of objectMembers(property)) found.push(...secretFields(nested, `${prefix}${name}.`));
  }
  return found;
}

/** The object schemas nested in a property: itself, its array items, its union members. */
function objectMembers(schema: JsonSchema): JsonSchema[] {
  const members: JsonSchema[] = [];
  if (isJsonSchema(schema['properties'])) members.push(schema);
  if (isJsonSchema(schema['items'])) members.push(...objectMembers(schema['items']));
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const union = schema[key];
    if (Array.isArray(union))
      for (const member of union) if (isJsonSchema(member)) members.push(...objectMembers(member));
  }
  return members;
}

/**
 * `true` in the bundle (dist/wallet.cjs), by its build's `define` (src/startup/bundle.mjs), whose
 * listing of every tool checks every definition first; undefined in the compiled modules the
 * tests and the build itself run. A definition is code, the same at every start of the bundle.
 */
declare const WALLET_DEFINITIONS_CHECKED_AT_BUILD: boolean | undefined;
const checkedAtBuild = typeof WALLET_DEFINITIONS_CHECKED_AT_BUILD === 'boolean' && WALLET_DEFINITIONS_CHECKED_AT_BUILD;

/**
 * In the bundle, by the same build: the digest of what `tool_describe` answers about every tool
 * (`definitionsDigestOfBuild` in definitions-digest.ts). Undefined elsewhere.
 */
declare const WALLET_DEFINITIONS_DIGEST: string | undefined;
export const definitionsDigest: string | undefined =
  typeof WALLET_DEFINITIONS_DIGEST === 'string' ? WALLET_DEFINITIONS_DIGEST : undefined;

/** In the bundle: the stamp of the schema record its build wrote (`schemaRecordOfBuild`). Undefined elsewhere. */
declare const WALLET_SCHEMA_RECORD_DIGEST: string | undefined;
const schemaRecordDigest: string | undefined =
  typeof WALLET_SCHEMA_RECORD_DIGEST === 'string' ? WALLET_SCHEMA_RECORD_DIGEST : undefined;

/**
 * The tools one server serves, by name. Refuses duplicate names at once and an unsound definition
 * before its first use: checking a definition converts its schemas, so a call checks only its own
 * tool and a listing all of them. The build lists them all before it ships the bundle, so an
 * unsound definition fails the build and the tests, and the bundle does not check them again (it
 * was most of `wallet serve`'s first tools/list: ~100 ms).
 */
export class ToolCatalogue {
  private readonly byName = new Map<string, AnyTool>();
  private readonly sound = new WeakSet<AnyTool>();

  /**
   * @param profile how the server lists these tools (see `src/tools/profiles.ts`); the meta tools
   *   describe them in the same terms.
   */
  constructor(
    tools: readonly AnyTool[],
    readonly profile: Profile = 'default',
  ) {
    const twice = tools.filter((tool, index) => tools.findIndex((other) => other.name === tool.name) !== index);
    if (twice.length > 0) {
      throw new Error(
        `Invalid tool definitions:\n  ${twice.map((tool) => `tool '${tool.name}': registered twice`).join('\n  ')}`,
      );
    }
    for (const tool of tools) this.byName.set(tool.name, tool);
  }

  list(): AnyTool[] {
    return this.checked([...this.byName.values()]);
  }

  /** How many tools it holds, without checking them (a listing does). */
  get size(): number {
    return this.byName.size;
  }

  get(name: string): AnyTool | undefined {
    const tool = this.byName.get(name);
    return tool && this.checked([tool])[0];
  }

  private checked(tools: AnyTool[]): AnyTool[] {
    if (checkedAtBuild) return tools;
    const problems = tools
      .filter((tool) => !this.sound.has(tool))
      .flatMap((tool) => definitionProblems(tool).map((problem) => `tool '${tool.name}': ${problem}`));
    if (problems.length > 0) throw new Error(`Invalid tool definitions:\n  ${problems.join('\n  ')}`);
    for (const tool of tools) this.sound.add(tool);
    return tools;
  }
}

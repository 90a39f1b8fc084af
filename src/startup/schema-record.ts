import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isJsonSchema, type JsonSchema } from '../shared/json-schema.js';
import { packageRoot } from '../shared/package-info.js';

/**
 * Every tool's input and output schema as JSON Schema, and the lean input schema the default
 * profile lists, converted by the build from the compiled definitions (`src/startup/bundle.mjs`, with
 * `schemaRecordOfBuild` in definitions-digest.ts) and stamped with a hash of them all, which the
 * bundle of the same build carries (`WALLET_SCHEMA_RECORD_DIGEST`). The bundle takes its schemas
 * from here instead of converting the zod schemas at the first tools/list (`wallet serve`'s, every
 * agent session's) or `tool_describe`; a record of another build is not taken.
 * The lean form is recorded too, not derived from the recorded input: the briefs it needs are
 * registered when a tool builds its zod schemas (`describedWithBrief`), which a recorded tool
 * never does.
 */
export const SCHEMA_RECORD_FILE = join('dist', 'tool-schemas.json');

export type SchemaRecord = {
  digest: string;
  tools: Record<string, { input: JsonSchema; output: JsonSchema; lean: JsonSchema }>;
};
export type RecordedSchemas = SchemaRecord['tools'];

/**
 * Whether a parsed record has the record's shape. A plain check, not zod: it runs at the first
 * tools/list of every `wallet serve` session, where zod's took ~2.5 ms for these few typeof tests.
 */
export function isSchemaRecord(value: unknown): value is SchemaRecord {
  if (!isJsonSchema(value) || typeof value['digest'] !== 'string') return false;
  const tools = value['tools'];
  return (
    isJsonSchema(tools) &&
    Object.values(tools).every(
      (tool) =>
        isJsonSchema(tool) && isJsonSchema(tool['input']) && isJsonSchema(tool['output']) && isJsonSchema(tool['lean']),
    )
  );
}

let read: { key: string; tools: RecordedSchemas | undefined } | undefined;

/**
 * The recorded schemas when the record is this build's (its digest is `digest`), else undefined
 * (no record, another build's, or unreadable): then the caller converts, as the compiled modules
 * always do. Read once per process.
 */
export function recordedSchemas(digest: string, root = packageRoot()): RecordedSchemas | undefined {
  const key = `${root}\0${digest}`;
  if (read?.key !== key) read = { key, tools: readRecord(join(root, SCHEMA_RECORD_FILE), digest) };
  return read.tools;
}

function readRecord(path: string, digest: string): RecordedSchemas | undefined {
  try {
    const record: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return isSchemaRecord(record) && record.digest === digest ? record.tools : undefined;
  } catch {
    return undefined;
  }
}

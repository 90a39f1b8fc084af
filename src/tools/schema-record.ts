import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { isJsonSchema, type JsonSchema } from '../shared/json-schema.js';
import { packageRoot } from '../shared/package-info.js';

/**
 * Every tool's input and output schema as JSON Schema, and the lean input schema the default
 * profile lists, converted by the build from the compiled definitions (`scripts/bundle.mjs`, with
 * `schemaRecordOfBuild` in definitions-digest.ts) and stamped with a hash of them all, which the
 * bundle of the same build carries (`WALLET_SCHEMA_RECORD_DIGEST`). The bundle takes its schemas
 * from here instead of converting the zod schemas at the first tools/list (`wallet serve`'s, every
 * agent session's) or `tool_describe`; a record of another build is not taken.
 * The lean form is recorded too, not derived from the recorded input: the briefs it needs are
 * registered when a tool builds its zod schemas (`describedWithBrief`), which a recorded tool
 * never does.
 */
export const SCHEMA_RECORD_FILE = join('dist', 'tool-schemas.json');

const Schema = z.custom<JsonSchema>(isJsonSchema, 'a JSON Schema object');
export const SchemaRecord = z.object({
  digest: z.string(),
  tools: z.record(z.string(), z.object({ input: Schema, output: Schema, lean: Schema })),
});
export type SchemaRecord = z.infer<typeof SchemaRecord>;
export type RecordedSchemas = SchemaRecord['tools'];

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
    const record = SchemaRecord.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    return record.success && record.data.digest === digest ? record.data.tools : undefined;
  } catch {
    return undefined;
  }
}

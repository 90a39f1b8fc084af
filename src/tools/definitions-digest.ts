import { createHash } from 'node:crypto';
import { describeTool, leanInputSchema } from './catalogue.js';
import { ALL_TOOLS } from './index.js';
import { compactTools, describeCompact, describeForAgent } from './profiles.js';
import type { SchemaRecord } from '../startup/schema-record.js';

/**
 * 16 hex digits (64 bits) of the SHA-256 of every answer `tool_describe` can give about this
 * build's tools, in both profiles that list it lean (each tool's full description, schemas with
 * their units, hints; the compact profile's actions): the build defines it in the bundle
 * (`WALLET_DEFINITIONS_DIGEST`, see `src/startup/bundle.mjs`) and a lean list carries it, so a client
 * that kept those answers knows when they changed. 64 bits tell a changed definition from an
 * unchanged one; the server vouches for the list and the answers alike.
 */
export function definitionsDigestOfBuild(): string {
  const answers = {
    default: ALL_TOOLS.map((tool) => describeForAgent(describeTool(tool))),
    compact: compactTools(ALL_TOOLS).map(describeCompact),
  };
  return createHash('sha256').update(JSON.stringify(answers)).digest('hex').slice(0, 16);
}

/**
 * Every tool's input and output schema as JSON Schema and its lean input schema, stamped with 16
 * hex digits of the SHA-256 of all of them: the build writes it beside the bundle and defines the
 * stamp in the bundle (`WALLET_SCHEMA_RECORD_DIGEST`), which then converts no schema itself
 * (src/startup/schema-record.ts) and takes no record but this one.
 */
export function schemaRecordOfBuild(): SchemaRecord {
  const tools = Object.fromEntries(
    ALL_TOOLS.map((tool) => {
      const { inputSchema: input, outputSchema: output } = describeTool(tool);
      return [tool.name, { input, output, lean: leanInputSchema(tool) }] as const;
    }),
  );
  return { digest: createHash('sha256').update(JSON.stringify(tools)).digest('hex').slice(0, 16), tools };
}

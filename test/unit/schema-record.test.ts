/**
 * The build's record of every tool's JSON Schemas (src/startup/schema-record.ts), which the bundle
 * takes instead of converting: the build writes this build's schemas, and a record that is not
 * this build's, or not a record at all, is not taken (the schemas are converted then).
 * test/mcp/profiles.test.ts checks that the bundle, from the record its build wrote, serves what
 * the modules convert.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { describeTool, leanInputSchema } from '../../src/tools/catalogue.js';
import { schemaRecordOfBuild } from '../../src/tools/definitions-digest.js';
import { ALL_TOOLS } from '../../src/tools/index.js';
import { recordedSchemas, SCHEMA_RECORD_FILE } from '../../src/startup/schema-record.js';
import { tempHome } from '../helpers/io.js';

/** A package root whose record file holds `content`. */
function rootWith(content: string): string {
  const root = tempHome();
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, SCHEMA_RECORD_FILE), content);
  return root;
}

describe('the schema record', () => {
  const record = schemaRecordOfBuild();
  const { digest } = record;

  it("holds every tool's input, output and lean input schema, as converted here, stamped with their hash", () => {
    assert.equal(digest, createHash('sha256').update(JSON.stringify(record.tools)).digest('hex').slice(0, 16));
    assert.deepEqual(
      Object.keys(record.tools),
      ALL_TOOLS.map((tool) => tool.name),
    );
    for (const tool of ALL_TOOLS) {
      const { inputSchema, outputSchema } = describeTool(tool);
      assert.deepEqual(record.tools[tool.name], {
        input: inputSchema,
        output: outputSchema,
        lean: leanInputSchema(tool),
      });
    }
  });

  it("is taken when it is this build's", () => {
    const root = rootWith(JSON.stringify(record));
    assert.deepEqual(recordedSchemas(digest, root), JSON.parse(JSON.stringify(record.tools)));
  });

  it("is not taken when it is another build's, missing, not JSON or not a record", () => {
    const cases = {
      'another build': rootWith(JSON.stringify({ ...record, digest: '0123456789abcdef' })),
      missing: tempHome(),
      'not JSON': rootWith('{"digest":'),
      'a schema that is no object': rootWith(
        JSON.stringify({ digest, tools: { network_info: { input: 'string', output: {}, lean: {} } } }),
      ),
      'no lean form': rootWith(JSON.stringify({ digest, tools: { network_info: { input: {}, output: {} } } })),
      'a tool that is no object': rootWith(JSON.stringify({ digest, tools: { network_info: null } })),
      'tools that are a list': rootWith(JSON.stringify({ digest, tools: [] })),
      'no tools': rootWith(JSON.stringify({ digest })),
      'a record that is a list': rootWith(JSON.stringify([digest])),
    };
    for (const [label, root] of Object.entries(cases)) assert.equal(recordedSchemas(digest, root), undefined, label);
  });
});

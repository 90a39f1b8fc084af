import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { SERVE_FLAGS } from '../../src/cli/serve.js';
import { ROOT } from '../helpers/paths.js';

/**
 * server.json, the wallet's entry in the official MCP registry, checked against the registry's own
 * schema (test/fixtures/mcp-registry/server.schema.json, kept byte for byte as published) and
 * against package.json, whose name, version, mcpName and repository it repeats.
 */
const read = (path: string): unknown => JSON.parse(readFileSync(join(ROOT, path), 'utf8'));
const SCHEMA = read('test/fixtures/mcp-registry/server.schema.json') as { $id: string };
const SERVER = read('server.json') as {
  $schema: string;
  name: string;
  version: string;
  repository: { url: string };
  websiteUrl: string;
  packages: {
    registryType: string;
    identifier: string;
    version: string;
    packageArguments: { type: string; name?: string; value?: string }[];
    environmentVariables: { name: string }[];
  }[];
};
const PACKAGE = read('package.json') as {
  name: string;
  version: string;
  mcpName: string;
  homepage: string;
  repository: { url: string };
};

// ajv-formats is CommonJS: its function is the default export's default under NodeNext.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default;

/** The registry's schema compiled: draft-07 with formats; its OpenAPI annotations (example, discriminator) ignored. */
function validator() {
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(SCHEMA);
}

describe('server.json (the MCP registry entry)', () => {
  const validate = validator();

  it("follows the official registry's schema", () => {
    assert.equal(validate(SERVER), true, JSON.stringify(validate.errors, null, 2));
    assert.equal(SERVER.$schema, SCHEMA.$id);
  });

  it('the schema check refuses what the registry refuses', () => {
    const { description: _description, ...withoutDescription } = SERVER as unknown as Record<string, unknown>;
    assert.equal(validate(withoutDescription), false);
    assert.equal(validate({ ...SERVER, description: 'x'.repeat(101) }), false);
    const ranged = { ...SERVER.packages[0], version: 'latest' };
    assert.equal(validate({ ...SERVER, packages: [ranged] }), false);
  });

  it('names the npm package, its version and repository as package.json does', () => {
    assert.equal(SERVER.name, PACKAGE.mcpName);
    assert.equal(SERVER.version, PACKAGE.version);
    assert.equal(SERVER.websiteUrl, PACKAGE.homepage);
    assert.equal(`git+${SERVER.repository.url}.git`, PACKAGE.repository.url);
    const [npm] = SERVER.packages;
    assert.equal(npm?.registryType, 'npm');
    assert.equal(npm?.identifier, PACKAGE.name);
    assert.equal(npm?.version, PACKAGE.version);
  });

  it('runs `wallet serve` with flags it has and variables the wallet reads', () => {
    const [npm] = SERVER.packages;
    assert.ok(npm);
    assert.deepEqual(
      npm.packageArguments.filter((argument) => argument.type === 'positional').map((argument) => argument.value),
      ['serve'],
    );
    for (const argument of npm.packageArguments.filter((one) => one.type === 'named')) {
      assert.ok(
        SERVE_FLAGS.some((flag) => `--${flag.name}` === argument.name),
        `${argument.name ?? '?'} is no flag of wallet serve`,
      );
    }
    const sources = ['src/cli/serve.ts', 'src/domain/config/endpoints.ts', 'src/shared/data-dir.ts']
      .map((path) => readFileSync(join(ROOT, path), 'utf8'))
      .join('\n');
    for (const { name } of npm.environmentVariables) {
      const read =
        sources.includes(`'${name}'`) ||
        /^WALLET_(CORE|EVM)_DEFAULT_NETWORK$/.test(name) ||
        /^WALLET_(CORE|EVM)_[A-Z0-9_]+_URL$/.test(name);
      assert.ok(read, `${name} is read by no module of the wallet's`);
    }
  });
});

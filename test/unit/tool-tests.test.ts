/**
 * Every tool has its test beside it (issue 35): a tool defined in
 * `src/tools/<domain>/<file>.ts` is tested in `test/tools/<domain>/<file>.test.ts`, so "where is
 * this tested?" is never a grep, and a new tool without a test fails here, in the unit tier,
 * naming the file to create. The tools still tested only in cross-cutting suites are listed in
 * UNTESTED_HERE, with where they are tested today: the list only shrinks (a listed tool that gets
 * its file must leave it).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/paths.js';

const DOMAINS = ['core', 'evm', 'meta', 'platform'];

/**
 * The known exceptions, in one place: `<domain>/<file>` → the suites that test the tool today.
 * Move the tool's blocks from there into its own file, then remove its line.
 */
const UNTESTED_HERE: Record<string, string> = {};

/** `<domain>/<file>` of every module of src/tools/<domain>/ that defines a tool. */
function toolFiles(): string[] {
  return DOMAINS.flatMap((domain) =>
    readdirSync(join(ROOT, 'src', 'tools', domain))
      .filter((file) => file.endsWith('.ts'))
      .filter((file) => /\bdefineTool\(/.test(readFileSync(join(ROOT, 'src', 'tools', domain, file), 'utf8')))
      .map((file) => `${domain}/${file.slice(0, -'.ts'.length)}`),
  ).sort();
}

/** Whether a suite names the tool (`core_txs_list`) or its CLI command (`core-txs-list`). */
const callsTool = (suite: string, name = '') =>
  name !== '' && (suite.includes(name) || suite.includes(name.replaceAll('_', '-')));

const testFileOf = (tool: string) => join('test', 'tools', `${tool}.test.ts`);

describe('every tool has its test file beside it (test/tools/<domain>/<file>.test.ts)', () => {
  const tools = toolFiles();

  it('finds the tools (the scan works)', () => {
    assert.ok(tools.length >= 40, `only ${tools.length} tool files found`);
    assert.ok(tools.includes('meta/network-info'));
  });

  it('a tool not listed in UNTESTED_HERE has its test file', () => {
    const missing = tools
      .filter((tool) => !(tool in UNTESTED_HERE))
      .filter((tool) => !existsSync(join(ROOT, testFileOf(tool))))
      .map((tool) => `src/tools/${tool}.ts has no test: create ${testFileOf(tool)}`);
    assert.deepEqual(missing, []);
  });

  it('UNTESTED_HERE lists only tools still without a test file', () => {
    const stale = Object.keys(UNTESTED_HERE)
      .filter((tool) => !tools.includes(tool) || existsSync(join(ROOT, testFileOf(tool))))
      .map((tool) =>
        tools.includes(tool)
          ? `${testFileOf(tool)} exists: remove '${tool}' from UNTESTED_HERE`
          : `'${tool}' in UNTESTED_HERE is no tool file: remove it`,
      );
    assert.deepEqual(stale, []);
  });

  it('every test file under test/tools/ names a tool file', () => {
    const orphans = DOMAINS.flatMap((domain) => {
      const dir = join(ROOT, 'test', 'tools', domain);
      return existsSync(dir)
        ? readdirSync(dir)
            .filter((file) => file.endsWith('.test.ts'))
            .map((file) => `${domain}/${file.slice(0, -'.test.ts'.length)}`)
        : [];
    })
      .filter((tool) => !tools.includes(tool))
      .map((tool) => `test/tools/${tool}.test.ts tests no tool: src/tools/${tool}.ts does not define one`);
    assert.deepEqual(orphans, []);
  });

  it('each suite UNTESTED_HERE points at exists and names the tool or its command', () => {
    const wrong = Object.entries(UNTESTED_HERE).flatMap(([tool, suites]) => {
      if (!tools.includes(tool)) return [];
      const source = readFileSync(join(ROOT, 'src', 'tools', `${tool}.ts`), 'utf8');
      const name = /^\s+name: '([a-z0-9_]+)'/m.exec(source)?.[1];
      return suites
        .split(', ')
        .filter((suite) => !existsSync(join(ROOT, suite)) || !callsTool(readFileSync(join(ROOT, suite), 'utf8'), name))
        .map((suite) => `${tool}: ${suite} names neither '${name}' nor its command`);
    });
    assert.deepEqual(wrong, []);
  });
});

import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../helpers/paths.js';
import { wallet } from '../helpers/io.js';

// Reference MCP servers from npm (devDependencies) that nobody here wrote, run offline over stdio.
const serverOf = (name: string, ...args: string[]): string =>
  [process.execPath, join(ROOT, 'node_modules', '@modelcontextprotocol', name, 'dist', 'index.js'), ...args]
    .map((word) => `"${word}"`)
    .join(' ');

const dir = mkdtempSync(join(tmpdir(), 'wallet-npm-servers-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('wallet --server: reference MCP servers from npm', () => {
  it('server-filesystem: an array of objects (--edits) edits a file; a flag without its value is exit 2', async () => {
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'hello world\nline two\n');
    const filesystem = serverOf('server-filesystem', dir);
    const help = await wallet(['--server', filesystem, 'edit-file', '--help']);
    assert.match(help.stdout, /--edits <\{oldText, newText\}> +\[required, repeatable\]/, 'the item shape is shown');
    const edit = await wallet([
      '--server',
      filesystem,
      'edit-file',
      '--path',
      file,
      '--edits',
      '{"oldText":"hello world","newText":"hi there"}',
      '--edits',
      '{"oldText":"line two","newText":"line 2"}',
      '--yes',
    ]);
    assert.equal(edit.code, 0, edit.stderr);
    assert.equal(readFileSync(file, 'utf8'), 'hi there\nline 2\n');
    const missing = await wallet(['--server', filesystem, 'read-text-file', '--path']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--path needs a value\./);
  });

  it('server-memory: arrays of nested objects create entities and relations, read back', async () => {
    const memory = ['--server', serverOf('server-memory'), '--env', `MEMORY_FILE_PATH=${join(dir, 'memory.jsonl')}`];
    const entities = await wallet([
      ...memory,
      'create-entities',
      '--entities',
      '{"name":"Ada","entityType":"person","observations":["wrote the first program"]}',
      '--entities',
      '{"name":"Engine","entityType":"machine","observations":[]}',
      '--yes',
    ]);
    assert.equal(entities.code, 0, entities.stderr);
    const relation = await wallet([
      ...memory,
      'create-relations',
      '--relations',
      '{"from":"Ada","to":"Engine","relationType":"programmed"}',
      '--yes',
    ]);
    assert.equal(relation.code, 0, relation.stderr);
    const graph = await wallet([...memory, 'read-graph', '--json']);
    assert.equal(graph.code, 0, graph.stderr);
    const read = JSON.parse(graph.stdout) as { entities: { name: string }[]; relations: { relationType: string }[] };
    assert.deepEqual(read.entities.map((entity) => entity.name).sort(), ['Ada', 'Engine']);
    assert.deepEqual(
      read.relations.map((entry) => entry.relationType),
      ['programmed'],
    );
  });

  it('server-sequential-thinking: a bare flag of a boolean-or-string union is true, --no-… false', async () => {
    const thinking = serverOf('server-sequential-thinking');
    const base = ['--server', thinking, 'sequentialthinking', '--thought', 'first', '--thought-number', '1'];
    const yes = await wallet([...base, '--total-thoughts', '2', '--next-thought-needed', '--json']);
    assert.equal(yes.code, 0, yes.stderr);
    assert.equal((JSON.parse(yes.stdout) as { nextThoughtNeeded: unknown }).nextThoughtNeeded, true);
    const no = await wallet([...base, '--no-next-thought-needed', '--total-thoughts', '1', '--json']);
    assert.equal(no.code, 0, no.stderr);
    assert.equal((JSON.parse(no.stdout) as { nextThoughtNeeded: unknown }).nextThoughtNeeded, false);
  });
});

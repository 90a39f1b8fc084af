import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { BUILTIN_TOOLS_FILE, readBuiltInTools } from '../../src/cli/builtin-tools.js';
import { toolCommands } from '../../src/cli/commands.js';
import { COMPLETION_FILES, COMPLETION_SHELLS, completionScript } from '../../src/cli/completion/index.js';
import { HELP_RECORD_FILE, recordHelp, type HelpRecord } from '../../src/startup/help-record.js';
import { runCli } from '../../src/cli/main.js';
import { openInProcessSession } from '../../src/mcp/in-process.js';
import { COMPACT_GROUPS, COMPACT_META_TOOL } from '../../src/tools/compact-groups.js';
import { ALL_TOOLS } from '../../src/tools/index.js';
import { renderToolsMarkdown } from '../../src/tools/tools-markdown.js';
import { fakeIo } from '../helpers/io.js';
import { ROOT } from '../helpers/paths.js';

/** The tool files' text and the declared groups, as scripts/tool-registry.mjs reads them. */
type ToolSources = { compactGroups: string; files: readonly { path: string; text: string }[] };
/** What scripts/tool-registry.mjs (plain JS: it runs before any build) exports. */
type ToolRegistryScript = {
  REGISTRY_FILE: string;
  readToolSources(root: string): ToolSources;
  renderToolRegistry(sources: ToolSources): string;
};

async function toolRegistryScript(): Promise<ToolRegistryScript> {
  return (await import(pathToFileURL(join(ROOT, 'scripts', 'tool-registry.mjs')).href)) as ToolRegistryScript;
}

describe('generated files', () => {
  it('src/tools/registry.ts lists every tool file, and nothing else (run `npm run generate`)', async () => {
    const { REGISTRY_FILE, readToolSources, renderToolRegistry } = await toolRegistryScript();
    const committed = readFileSync(join(ROOT, REGISTRY_FILE), 'utf8');
    assert.equal(
      committed,
      renderToolRegistry(readToolSources(ROOT)),
      `${REGISTRY_FILE} is stale: run \`npm run generate\``,
    );
  });
  it('ALL_TOOLS lists the meta tools first, then by the declared compact groups, a group looking before it acts', () => {
    const groups = Object.keys(COMPACT_GROUPS);
    const rank = (tool: (typeof ALL_TOOLS)[number]) =>
      [tool.group === COMPACT_META_TOOL ? 0 : 1, groups.indexOf(tool.group)] as const;
    for (const [index, tool] of ALL_TOOLS.entries()) {
      const before = ALL_TOOLS[index - 1];
      if (!before) continue;
      const [a, b] = [rank(before), rank(tool)];
      assert.ok(a[0] < b[0] || (a[0] === b[0] && a[1] <= b[1]), `${before.name} before ${tool.name}`);
      if (before.group === tool.group) {
        assert.ok(!before.name.endsWith('_delete'), `${before.name} (a delete) before ${tool.name}`);
        assert.ok(
          !(tool.name.endsWith('_list') && before.name.endsWith('_create')),
          `${before.name} before ${tool.name}`,
        );
      }
    }
  });
  it('a tool file the registry cannot list fails, saying what to change', async () => {
    const { readToolSources, renderToolRegistry } = await toolRegistryScript();
    const { compactGroups } = readToolSources(ROOT);
    const tool = (constant: string, name: string, group: string) =>
      `export const ${constant} = defineTool({\n  name: '${name}',\n  group: '${group}',\n});\n`;
    const cases: [ToolSources['files'], RegExp][] = [
      [
        [{ path: 'src/tools/core/echo.ts', text: tool('coreEcho', 'core_address_echo', 'core_address') }],
        /core_address_echo belongs in src\/tools\/core\/address-echo\.ts/,
      ],
      [
        [{ path: 'src/tools/core/address-echo.ts', text: tool('coreAddressEcho', 'core_address_echo', 'core_echo') }],
        /group 'core_echo' is not declared in src\/tools\/compact-groups\.ts/,
      ],
      [
        [
          {
            path: 'src/tools/core/address-echo.ts',
            text: tool('a', 'core_address_echo', 'core_address') + tool('b', 'core_address_ping', 'core_address'),
          },
        ],
        /one tool per file; move b to files of their own/,
      ],
      [
        [{ path: 'src/tools/core/address-echo.ts', text: 'export const coreAddressEcho =\n  defineTool({});\n' }],
        /write its tool as `export const <name> = defineTool\(\{` on one line/,
      ],
    ];
    for (const [files, message] of cases) assert.throws(() => renderToolRegistry({ compactGroups, files }), message);
  });
  it('docs/TOOLS.md is up to date (run `npm run generate`)', () => {
    const committed = readFileSync(join(ROOT, 'docs', 'TOOLS.md'), 'utf8');
    assert.equal(committed, renderToolsMarkdown(ALL_TOOLS), 'docs/TOOLS.md is stale: run `npm run generate`');
  });
  it('docs/TOOLS.md documents every tool', () => {
    const markdown = renderToolsMarkdown(ALL_TOOLS);
    for (const tool of ALL_TOOLS) assert.match(markdown, new RegExp(`^## ${tool.name}$`, 'm'));
  });
  it('the completion scripts in completions/ are up to date (run `npm run generate`)', async () => {
    const session = await openInProcessSession({});
    let commands;
    try {
      commands = toolCommands(await session.listTools());
    } finally {
      await session.close();
    }
    for (const shell of COMPLETION_SHELLS) {
      const file = join('completions', COMPLETION_FILES[shell]);
      const committed = readFileSync(join(ROOT, file), 'utf8');
      assert.equal(committed, completionScript(shell, commands), `${file} is stale: run \`npm run generate\``);
      for (const { command } of commands) assert.ok(committed.includes(`\t${command}\t`), `${file} lacks ${command}`);
    }
  });
  it('the built-in tool list the build recorded is what the server lists now (run `npm run build`)', async () => {
    const session = await openInProcessSession({});
    try {
      const live = await session.listTools();
      const recorded = await readBuiltInTools();
      assert.ok(recorded, `${BUILTIN_TOOLS_FILE} is missing or of another version: run \`npm run build\``);
      assert.deepEqual(recorded.server, session.server);
      assert.deepEqual(recorded.tools, live, `${BUILTIN_TOOLS_FILE} is stale: run \`npm run build\``);
    } finally {
      await session.close();
    }
  });
  it('the help the build recorded is what the CLI prints now, to a pipe and to a terminal (run `npm run build`)', async () => {
    const record = JSON.parse(readFileSync(join(ROOT, HELP_RECORD_FILE), 'utf8')) as HelpRecord;
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(record.version, version);
    assert.deepEqual(record, await recordHelp(), `${HELP_RECORD_FILE} is stale: run \`npm run build\``);
    const recorded = await readBuiltInTools();
    assert.ok(recorded);
    const commands = toolCommands(recorded.tools);
    // Every tool's command, under its own name and its tool's, and nothing else.
    assert.deepEqual(
      record.commands,
      Object.fromEntries(
        commands.flatMap(({ command, tool }) => [
          [command, command],
          [tool.name, command],
        ]),
      ),
    );
    // Every word the record answers for, as the CLI answers it.
    for (const word of ['', ...Object.keys(record.commands)]) {
      const key = word === '' ? '' : record.commands[word];
      assert.ok(key !== undefined);
      for (const tty of [false, true]) {
        const io = fakeIo({ tty });
        const code = await runCli(word === '' ? ['--help'] : [word, '--help'], io);
        assert.equal(code, 0, io.err());
        assert.equal((tty ? record.color : record.plain)[key], io.out(), `${HELP_RECORD_FILE} is stale for '${word}'`);
      }
    }
    assert.equal(Object.keys(record.plain).length, commands.length + 1);
    assert.equal(Object.keys(record.color).length, commands.length + 1);
    assert.ok(record.color['']?.startsWith('\u001b[1mwallet\u001b[22m'));
    assert.ok(!record.plain['']?.includes('\u001b'));
  });
});

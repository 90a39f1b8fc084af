/**
 * `wallet --get-tool-definition` is pasted into an agent's config, so it prints exactly what
 * `wallet serve` serves (issue 18): no local-only tool, `--read-only` and `--profile` honoured;
 * and the command form honours `--format` as the flag form does.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FUNCTION_DIALECTS, inDialect, type ToolDefinitionDocument } from '../../src/shared/function-catalogue.js';
import { ALL_TOOLS, compactTools } from '../../src/tools/index.js';
import { wallet } from '../helpers/io.js';

type Document = { tool: { functions: { name: string; description: string; parameters: unknown }[] } };

const SERVED = ALL_TOOLS.filter((tool) => tool.localOnly !== true);

async function definitions(argv: string[]): Promise<unknown> {
  const { code, stdout, stderr } = await wallet(argv);
  assert.equal(code, 0, stderr);
  return JSON.parse(stdout) as unknown;
}

const names = (document: unknown): string[] => (document as Document).tool.functions.map((fn) => fn.name);

describe('wallet --get-tool-definition', () => {
  it('lists the tools wallet serve serves, never a local-only one', async () => {
    assert.deepEqual(
      names(await definitions(['--get-tool-definition'])),
      SERVED.map((tool) => tool.name),
    );
    assert.ok(
      ALL_TOOLS.some((tool) => tool.localOnly === true),
      'the catalogue has local-only tools to leave out',
    );
  });

  it('honours --read-only and --profile', async () => {
    assert.deepEqual(
      names(await definitions(['--get-tool-definition', '--read-only'])),
      SERVED.filter((tool) => tool.annotations.readOnlyHint).map((tool) => tool.name),
    );
    assert.deepEqual(
      names(await definitions(['--get-tool-definition', '--profile', 'compact'])),
      compactTools(SERVED).map((tool) => tool.name),
    );
    const full = (await definitions(['--get-tool-definition', '--profile', 'full'])) as Document;
    assert.equal(full.tool.functions[0]?.description, SERVED[0]?.description);
    const lean = (await definitions(['--get-tool-definition'])) as Document;
    assert.equal(lean.tool.functions[0]?.description, SERVED[0]?.summary);
  });

  it('the command form honours --format as the flag form does', async () => {
    // The command form asks the CLI's own server (local-only tools too); the dialect is the point.
    const document = (await definitions(['get-tool-definition', '--json'])) as ToolDefinitionDocument;
    for (const format of FUNCTION_DIALECTS) {
      const commandForm = await definitions(['get-tool-definition', '--format', format]);
      assert.deepEqual(commandForm, inDialect(document, format), format);
    }
    const anthropic = (await definitions(['get-tool-definition', '--format', 'anthropic'])) as { name: string }[];
    assert.ok(Array.isArray(anthropic) && anthropic.every((fn) => 'input_schema' in fn));
  });

  it('refuses --format on a tool that returns no such document, and the serve flags without it', async () => {
    const notADocument = await wallet(['network-info', '--format', 'openai']);
    assert.equal(notADocument.code, 2);
    assert.match(
      notADocument.stderr,
      /--format applies to tool definition documents; 'network_info' did not return one/,
    );
    const stray = await wallet(['network-info', '--profile', 'compact']);
    assert.equal(stray.code, 2);
    assert.match(stray.stderr, /--read-only and --profile go with --get-tool-definition/);
  });
});

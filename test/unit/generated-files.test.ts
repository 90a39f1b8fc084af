import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ALL_TOOLS } from '../../src/tools/index.js';
import { renderToolsMarkdown } from '../../src/tools/tools-markdown.js';
import { ROOT } from '../helpers/paths.js';

describe('generated files', () => {
  it('docs/TOOLS.md is up to date (run `npm run generate`)', () => {
    const committed = readFileSync(join(ROOT, 'docs', 'TOOLS.md'), 'utf8');
    assert.equal(committed, renderToolsMarkdown(ALL_TOOLS), 'docs/TOOLS.md is stale: run `npm run generate`');
  });
  it('docs/TOOLS.md documents every tool', () => {
    const markdown = renderToolsMarkdown(ALL_TOOLS);
    for (const tool of ALL_TOOLS) assert.match(markdown, new RegExp(`^## ${tool.name}$`, 'm'));
  });
});

#!/usr/bin/env node
// Regenerates the files derived from the tool definitions (docs/TOOLS.md) from the build in dist/.
// Run `npm run generate` after changing a tool; a test fails while a generated file is stale.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALL_TOOLS } from '../dist/tools/index.js';
import { renderToolsMarkdown } from '../dist/tools/tools-markdown.js';

const root = join(import.meta.dirname, '..');
writeFileSync(join(root, 'docs', 'TOOLS.md'), renderToolsMarkdown(ALL_TOOLS));
console.error('wrote docs/TOOLS.md');

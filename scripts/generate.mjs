#!/usr/bin/env node
// Regenerates the files derived from the tool definitions from the build in dist/: docs/TOOLS.md,
// and the shell completion scripts in completions/ (the built-in tools as the CLI sees them:
// tools/list over the in-process MCP session, then the CLI's commands).
// Run `npm run generate` after changing a tool; a test fails while a generated file is stale.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toolCommands } from '../dist/cli/commands.js';
import { COMPLETION_FILES, COMPLETION_SHELLS, completionScript } from '../dist/cli/completion/index.js';
import { openInProcessSession } from '../dist/mcp/in-process.js';
import { ALL_TOOLS } from '../dist/tools/index.js';
import { renderToolsMarkdown } from '../dist/tools/tools-markdown.js';

const root = join(import.meta.dirname, '..');
const write = (path, text) => {
  writeFileSync(join(root, path), text);
  console.error(`wrote ${path}`);
};

write(join('docs', 'TOOLS.md'), renderToolsMarkdown(ALL_TOOLS));

const session = await openInProcessSession({});
try {
  const commands = toolCommands(await session.listTools());
  for (const shell of COMPLETION_SHELLS) {
    write(join('completions', COMPLETION_FILES[shell]), completionScript(shell, commands));
  }
} finally {
  await session.close();
}

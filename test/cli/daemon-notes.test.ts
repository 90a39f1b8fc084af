/**
 * The MCP SDK's own notes (what it prints with `console`) in the kept-alive servers' daemon,
 * which holds sessions of several servers in one process, their calls overlapping: each note goes
 * to the sink of the session whose request it comes from (that server's log), not to the session
 * opened last. Real sessions of the fixture server (spawned over stdio), which declares tools and
 * prompts but no resources: asking it for resources makes the SDK note that it does not declare them.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openStdioSession, type McpSession } from '../../src/mcp/client.js';
import { FIXTURE_SERVER } from '../helpers/paths.js';

const NO_RESOURCES = 'called but server does not advertise resources capability';

async function session(notes: string[]): Promise<McpSession> {
  return openStdioSession({ command: process.execPath, args: [FIXTURE_SERVER], stderr: 'capture' }, 30_000, {
    onLibraryMessage: (text) => notes.push(text),
  });
}

describe("kept-alive servers: the SDK's notes", () => {
  it("go to the log of the session whose request made them, also when two sessions' calls overlap", async () => {
    const first: string[] = [];
    const second: string[] = [];
    const one = await session(first);
    const two = await session(second);
    try {
      // The first session's request, while the second (opened last) is in a call of its own.
      const [resources, tools] = await Promise.all([one.listResources(), two.listTools()]);
      assert.deepEqual(resources, { resources: [], templates: [] });
      assert.ok(tools.length > 0);
      assert.equal(first.filter((note) => note.includes(NO_RESOURCES)).length, 2, first.join('\n'));
      assert.deepEqual(
        second.filter((note) => note.includes(NO_RESOURCES)),
        [],
        'none in the other session',
      );
      // And the other way round.
      await Promise.all([two.listResources(), one.listTools()]);
      assert.equal(second.filter((note) => note.includes(NO_RESOURCES)).length, 2, second.join('\n'));
      assert.equal(first.filter((note) => note.includes(NO_RESOURCES)).length, 2);
    } finally {
      await Promise.all([one.close(), two.close()]);
    }
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { activityOn } from '../../src/cli/activity.js';

/** A stream that looks like a terminal of `columns` columns and records what is written to it. */
function terminal(columns: number): { written: () => string; stream: Parameters<typeof activityOn>[0] } {
  let text = '';
  const stream = {
    isTTY: true,
    columns,
    write: (chunk: string) => {
      text += chunk;
      return true;
    },
    cursorTo: () => true,
    clearLine: () => true,
    moveCursor: () => true,
    on: () => stream,
    once: () => stream,
    removeListener: () => stream,
  };
  return { written: () => text, stream };
}

describe('the spinner (activityOn)', () => {
  it('draws on a terminal, with control characters from a server made visible', async () => {
    const { written, stream } = terminal(80);
    const activity = await activityOn(stream);
    activity.start('Waiting \u001b[2J for the node');
    activity.stop();
    assert.match(written(), /Waiting \\x1b\[2J for the node/);
    assert.ok(!written().includes('\u001b[2J'), 'the raw escape reached the terminal');
  });

  it('stays silent on a terminal that reports 0 columns (ora would redraw without end) and off a terminal', async () => {
    for (const stream of [terminal(0).stream, { write: () => true, isTTY: false }]) {
      let wrote = false;
      const activity = await activityOn({ ...stream, write: () => (wrote = true) });
      activity.start('Talking to the network…');
      activity.progress('block 1');
      activity.stop();
      assert.equal(wrote, false);
    }
  });
});

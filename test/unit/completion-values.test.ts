/**
 * The completion values as the kept-alive servers' daemon keeps them up to date
 * (src/cli/daemon/completion-values.ts): again only when a source changed, and a source changed
 * while the values were being made counts as changed.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { CompletionValues } from '../../src/cli/daemon/completion-values.js';

/** Waits until `runs` refreshes have run (the daemon's delay after an answer is 250 ms; a busy machine runs timers late). */
async function refreshed(counter: { runs: () => number }, runs: number): Promise<void> {
  for (const deadline = Date.now() + 10_000; counter.runs() < runs && Date.now() < deadline;) await delay(25);
  assert.equal(counter.runs(), runs);
}

/** Waits well past the daemon's delay, for a refresh that should not run (and did not, by then). */
const noRefresh = (): Promise<void> => delay(1_000);

function dataDir(): string {
  const home = mkdtempSync(join(tmpdir(), 'wallet-values-'));
  writeServers(home, 'a');
  return home;
}

function writeServers(home: string, name: string): void {
  writeFileSync(join(home, 'servers.json'), JSON.stringify({ mcpServers: { [name]: { command: 'true' } } }), {
    mode: 0o600,
  });
}

/** A refresh that writes the values file, as the real one does, and counts its runs. */
function counting(during?: (home: string) => void): { refresh: (home: string) => Promise<void>; runs: () => number } {
  let runs = 0;
  return {
    refresh: async (home) => {
      runs++;
      during?.(home);
      mkdirSync(join(home, 'cache'), { recursive: true });
      writeFileSync(join(home, 'cache', 'completion-values.tsv'), `run ${runs}\n`, { mode: 0o600 });
      await Promise.resolve();
    },
    runs: () => runs,
  };
}

describe("kept-alive servers: the daemon's completion values", () => {
  it('are made again only when a source changed', async () => {
    const home = dataDir();
    try {
      const counter = counting();
      const values = new CompletionValues(counter.refresh);
      values.want(home);
      await refreshed(counter, 1);
      values.want(home);
      await noRefresh();
      assert.equal(counter.runs(), 1, 'nothing changed: not made again');
      writeServers(home, 'b');
      // Another size: a change its times alone might not tell apart on a coarse clock.
      values.want(home);
      await refreshed(counter, 2);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('are made again when a source changed while they were being made', async () => {
    const home = dataDir();
    try {
      let first = true;
      const counter = counting((at) => {
        if (!first) return;
        first = false;
        // servers.json edited while the values are made from its earlier content.
        writeServers(at, 'edited-meanwhile');
        const later = new Date(Date.now() + 5_000);
        utimesSync(join(at, 'servers.json'), later, later);
      });
      const values = new CompletionValues(counter.refresh);
      values.want(home);
      await refreshed(counter, 1);
      // The change made during the first refresh was not taken as seen: made again.
      values.want(home);
      await refreshed(counter, 2);
      values.want(home);
      await noRefresh();
      assert.equal(counter.runs(), 2, 'then nothing changed');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

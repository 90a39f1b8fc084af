/**
 * The CLI's output to a pipe or a file is written with `writeSync`, not through `process.stdout`
 * (which, for a pipe, loads Node's `net` and streams): in order, whole, and handed to Node's
 * stream, in order, when a direct write cannot go on.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { after, describe, it } from 'node:test';
import { outputOn } from '../../src/shared/std-output.js';
import { tempHome } from '../helpers/io.js';

describe('the CLI writes its output directly to a pipe or a file', () => {
  const home = tempHome();
  after(() => rmSync(home, { recursive: true, force: true }));

  it('writes to a file in order, and never makes the stream', () => {
    const path = join(home, 'out.txt');
    const fd = openSync(path, 'w');
    let made = 0;
    try {
      const output = outputOn(fd, () => {
        made++;
        return process.stdout;
      });
      assert.equal(output.isTTY, false);
      output.write('first line\n');
      output.write('ünïcode ✓\n');
    } finally {
      closeSync(fd);
    }
    assert.equal(readFileSync(path, 'utf8'), 'first line\nünïcode ✓\n');
    assert.equal(made, 0);
  });

  it('hands the rest to the stream when the pipe is full, and everything after it, in order', async () => {
    // A child that reads nothing for a while: its stdin, a non-blocking pipe on our side, fills
    // (a socket's buffer, ~200 KiB on Linux), and writeSync stops with EAGAIN part-way through a write.
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => process.stdin.pipe(process.stdout), 300)'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const received: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => received.push(chunk));
    const ended = new Promise<void>((resolve) => child.on('close', () => resolve()));
    const fd = (child.stdin as Writable & { _handle: { fd: number } })._handle.fd;
    let made = 0;
    const output = outputOn(fd, () => {
      made++;
      return child.stdin as unknown as NodeJS.WriteStream;
    });
    const chunks = ['a'.repeat(1_000_000), 'b'.repeat(1_000_000), 'c'.repeat(10)];
    for (const chunk of chunks) output.write(chunk);
    child.stdin.end();
    await ended;
    assert.equal(made, 1, 'the stream was made once, when the pipe filled');
    const text = Buffer.concat(received).toString('utf8');
    assert.equal(text.length, 2_000_010);
    assert.ok(text === chunks.join(''), 'every byte, in order');
  });

  it('hands everything to the stream when the descriptor cannot be written', () => {
    const path = join(home, 'read-only.txt');
    const fd = openSync(join(home, 'read-only.txt'), 'w');
    closeSync(fd);
    const readOnly = openSync(path, 'r');
    const seen: string[] = [];
    try {
      const output = outputOn(
        readOnly,
        () => ({ write: (text: Uint8Array | string) => seen.push(String(text)) }) as unknown as NodeJS.WriteStream,
      );
      output.write('one\n');
      output.write('two\n');
    } finally {
      closeSync(readOnly);
    }
    assert.deepEqual(seen, ['one\n', 'two\n']);
    assert.equal(readFileSync(path, 'utf8'), '');
  });
});

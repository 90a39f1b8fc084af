/**
 * The passphrase prompt on a terminal (issue 22): a short passphrase is refused before "Repeat
 * it:", and Ctrl-C at the prompt ends with "interrupted" (exit 130), not a WALLET_LOCKED line.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import type { CliIo } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/main.js';
import { tempHome } from '../helpers/io.js';

/** A terminal on which each line is typed only once the previous prompt has been written. */
function terminal(home: string, lines: readonly string[]): { io: CliIo; err: () => string } {
  let err = '';
  let typed = 0;
  const stdin = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => undefined });
  const write = (text: string): boolean => {
    err += text;
    if (/: $/.test(text) && typed < lines.length) {
      const line = lines[typed++] ?? '';
      setImmediate(() => stdin.write(line));
    }
    return true;
  };
  return {
    io: {
      stdout: { write: () => true, isTTY: true },
      stderr: { write, isTTY: true },
      stdin,
      env: { WALLET_HOME: home, NO_COLOR: '1' },
    } as unknown as CliIo,
    err: () => err,
  };
}

describe('the passphrase prompt', () => {
  it('refuses a short passphrase before asking to repeat it', async () => {
    const home = tempHome();
    try {
      const run = terminal(home, ['short\r', 'long enough pw\r', 'long enough pw\r']);
      const code = await runCli(['core-wallet-create', '--alias', 'main', '--network', 'testnet', '--json'], run.io);
      assert.equal(code, 0, run.err());
      assert.match(
        run.err(),
        /New keystore passphrase \(hidden, 8\+ characters\): \nAt least 8 characters; try again\.\nNew keystore passphrase/,
      );
      assert.equal(run.err().match(/Repeat it: /g)?.length, 1);
      const second = terminal(home, ['long enough pw\r']);
      const again = await runCli(
        ['core-wallet-create', '--alias', 'second', '--network', 'testnet', '--json'],
        second.io,
      );
      assert.equal(again.valueOf(), 0, second.err());
      assert.match(second.err(), /^Keystore passphrase \(hidden\): /, 'one keystore passphrase, asked once');
      assert.doesNotMatch(second.err(), /New keystore passphrase|Repeat it/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('Ctrl-C prints "interrupted", exit 130, and no WALLET_LOCKED line', async () => {
    const home = tempHome();
    try {
      const run = terminal(home, ['\u0003']);
      const code = await runCli(['core-wallet-create', '--alias', 'main', '--network', 'testnet'], run.io);
      assert.equal(code, 130);
      assert.match(run.err(), /interrupted\n$/);
      assert.doesNotMatch(run.err(), /WALLET_LOCKED/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

/**
 * Runs the CLI in-process against one data directory, with an owner-only passphrase file for the
 * right passphrase and one for a wrong one, and checks refusals: a code and exit status, nothing on
 * stdout, the keystore byte-identical, and none of the `hidden` strings (credentials) on stderr.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { passphraseFileIn, tempHome, wallet } from './io.js';

/**
 * `yes: false` leaves out `--yes`. By default destructive tools run confirmed: these tests are
 * about the server's own checks; the confirmation has its own (test/cli/any-server.test.ts).
 */
export type RunOptions = { stdin?: string; passphrase?: 'right' | 'wrong' | 'none'; yes?: boolean };
type Result = { code: number; stdout: string; stderr: string };

export type CliHarness = {
  home: string;
  /** `wallet <argv>` with `--passphrase-file` of the right passphrase and `--yes` unless told otherwise. */
  run(argv: string[], options?: RunOptions): Promise<Result>;
  /** Runs with `--json`, expects exit 0 and returns the parsed result. */
  json<T>(argv: string[], options?: RunOptions): Promise<T>;
  /** Every keystore file's name and contents. */
  keystoreSnapshot(): string;
  /** Expects the call to fail with `code` and `exit`, changing nothing; returns its stderr. */
  expectError(argv: string[], code: string, exit: number, options?: RunOptions): Promise<string>;
  remove(): void;
};

export function cliHarness(env: Record<string, string>, hidden: readonly string[]): CliHarness {
  const home = tempHome();
  const passphraseFile = passphraseFileIn(home, 'right passphrase');
  const wrongFile = passphraseFileIn(home, 'wrong passphrase', 'wrong');
  const run = (argv: string[], options: RunOptions = {}): Promise<Result> => {
    const pass = options.passphrase ?? 'right';
    const flags = pass === 'none' ? [] : ['--passphrase-file', pass === 'right' ? passphraseFile : wrongFile];
    if (options.yes !== false) flags.push('--yes');
    return wallet([...argv, ...flags], { home, env, ...(options.stdin === undefined ? {} : { stdin: options.stdin }) });
  };
  const keystoreSnapshot = (): string =>
    readdirSync(join(home, 'keystore'))
      .sort()
      .map((name) => `${name}:${readFileSync(join(home, 'keystore', name), 'utf8')}`)
      .join('\n');
  return {
    home,
    run,
    keystoreSnapshot,
    async json<T>(argv: string[], options: RunOptions = {}): Promise<T> {
      const result = await run([...argv, '--json'], options);
      assert.equal(result.code, 0, `${argv.join(' ')}: ${result.stderr}`);
      return JSON.parse(result.stdout) as T;
    },
    async expectError(argv: string[], code: string, exit: number, options: RunOptions = {}): Promise<string> {
      const before = keystoreSnapshot();
      const result = await run(argv, options);
      assert.equal(result.code, exit, `${argv.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`error: ${code}:`), argv.join(' '));
      assert.equal(result.stdout, '', 'nothing on stdout');
      assert.equal(keystoreSnapshot(), before, 'keystore unchanged');
      for (const secret of hidden) assert.ok(!result.stderr.includes(secret), `${secret} shown`);
      return result.stderr;
    },
    remove: () => rmSync(home, { recursive: true, force: true }),
  };
}

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Module } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Script } from 'node:vm';
import type { HelpRecord } from '../../src/startup/help-record.js';
import { ROOT, WALLET_BIN } from '../helpers/paths.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';

/** The few tests that run the real binary, as a newcomer would after `npm install`. */
function run(args: string[], input?: string) {
  return spawnSync(process.execPath, [WALLET_BIN, ...args], {
    env: { ...process.env, WALLET_HOME: tempHome(), NO_COLOR: '1' },
    encoding: 'utf8',
    input,
    timeout: 30_000,
  });
}

/**
 * util-linux's `script`, which runs a command on a pseudo-terminal (through `$SHELL -c`, so given
 * /bin/sh). The terminal checks skip, saying why, where it is missing or cannot give a terminal:
 * another `script` (BSD's, BusyBox's), no /dev/pts.
 */
const SCRIPT = ['/usr/bin/script', '/bin/script'].find((path) => existsSync(path));
const SCRIPT_ENV = { ...process.env, SHELL: '/bin/sh' };
const NO_TERMINAL = ((): string | false => {
  if (!SCRIPT) return 'script (util-linux) is not installed here: no pseudo-terminal to run on';
  const probe = spawnSync(SCRIPT, ['-qec', 'test -t 1', '/dev/null'], {
    env: SCRIPT_ENV,
    encoding: 'utf8',
    timeout: 10_000,
  });
  return probe.status === 0
    ? false
    : `${SCRIPT} -qec gave no terminal here (exit ${String(probe.status)}): ${probe.stderr.trim()}`;
})();

/**
 * `wallet <args>` with stdout a pipe, or on a terminal (`tty`: a pseudo-terminal made by
 * `script`, which hands back what the command wrote there, line ends as written), NO_COLOR unset
 * unless `env` sets it.
 */
function runAs(args: string[], options: { tty?: boolean; env?: Record<string, string>; bin?: string } = {}) {
  const env: Record<string, string | undefined> = { ...SCRIPT_ENV, WALLET_HOME: tempHome(), ...options.env };
  if (options.env?.['NO_COLOR'] === undefined) delete env['NO_COLOR'];
  const command = [process.execPath, options.bin ?? WALLET_BIN, ...args];
  if (!options.tty) return spawnSync(command[0] ?? '', command.slice(1), { env, encoding: 'utf8', timeout: 30_000 });
  const quoted = command.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  const result = spawnSync(SCRIPT ?? 'script', ['-qec', quoted, '/dev/null'], {
    env,
    encoding: 'utf8',
    timeout: 30_000,
  });
  return { ...result, stdout: result.stdout.replace(/\r\n/g, '\n') };
}

describe('the wallet binary', () => {
  it('wallet --help', () => {
    const result = run(['--help']);
    assert.equal(result.status, 0);
    assert.match(result.stdout, /Usage: wallet <command> \[flags\]/);
    assert.match(result.stdout, /tool-describe/);
  });

  it('the build leaves V8 code caches that this Node accepts, one for each kind of run', () => {
    // bin/wallet.js compiles each bundle as this does; a cache V8 rejects would be silently slow.
    const caches = {
      'wallet.cjs': ['wallet.cjs.cache', 'wallet.cjs.help.cache', 'wallet.cjs.remote.cache'],
      'serve.cjs': ['serve.cjs.cache'],
      'ahead.cjs': ['ahead.cjs.cache'],
    };
    for (const [file, names] of Object.entries(caches)) {
      const bundle = join(ROOT, 'dist', file);
      const source = Module.wrap(readFileSync(bundle, 'utf8'));
      for (const cache of names) {
        const script = new Script(source, { filename: bundle, cachedData: readFileSync(join(ROOT, 'dist', cache)) });
        assert.equal(script.cachedDataRejected, false, cache);
      }
    }
    const size = (file: string): number => statSync(join(ROOT, 'dist', file)).size;
    assert.ok(size('wallet.cjs.help.cache') < size('wallet.cjs.cache'));
    // serve's bundle leaves out the CLI's commands and its MCP client.
    assert.ok(size('serve.cjs') < size('wallet.cjs') * 0.75);
  });

  it('wallet serve runs from its own bundle, and refuses bad command lines as the CLI does', async () => {
    for (const argv of [
      ['serve', '--profile', 'nope'],
      ['serve', '--bogus'],
      ['serve', '--log-level', 'loud'],
      ['serve', '--listen', '127.0.0.1:0'],
      ['serve', '--help'],
    ]) {
      const binary = run(argv);
      const inProcess = await wallet(argv);
      assert.deepEqual(
        { code: binary.status, stdout: binary.stdout, stderr: binary.stderr },
        { code: inProcess.code, stdout: inProcess.stdout, stderr: inProcess.stderr },
        argv.join(' '),
      );
    }
    // The bundle bin/wallet.js runs for `serve`: a copy of the package whose serve.cjs says so.
    const copy = tempHome();
    try {
      for (const part of ['bin', 'dist', 'package.json'])
        cpSync(join(ROOT, part), join(copy, part), { recursive: true });
      writeFileSync(
        join(copy, 'dist', 'serve.cjs'),
        "exports.runServeCli = async (argv) => (process.stdout.write('serve.cjs ' + argv.join(' ') + '\\n'), 0);\n",
      );
      const served = runAs(['serve', '--read-only'], { bin: join(copy, 'bin', 'wallet.js') });
      assert.equal(served.status, 0, served.stderr);
      assert.equal(served.stdout, 'serve.cjs serve --read-only\n');
      // Without serve.cjs (a build that failed halfway), the CLI's bundle serves.
      rmSync(join(copy, 'dist', 'serve.cjs'));
      const fallback = runAs(['serve', '--help'], { bin: join(copy, 'bin', 'wallet.js') });
      assert.equal(fallback.status, 0, fallback.stderr);
      assert.match(fallback.stdout, /^wallet serve — /);
      // Any other first word is the CLI's: its own `serve`, which takes no global flag, refuses it.
      const cli = runAs(['--no-color', 'serve'], { bin: join(copy, 'bin', 'wallet.js') });
      assert.equal(cli.status, 2);
      assert.equal(cli.stdout, '');
      assert.match(cli.stderr, /^error: USAGE: Unknown flag --color for 'serve'\./);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it("wallet --version prints package.json's version, answered by the launcher or the CLI alike", () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const launcher = run(['--version']);
    assert.equal(launcher.status, 0, launcher.stderr);
    assert.equal(launcher.stdout, `${version}\n`);
    // Any other flag with it goes through the bundle's own --version.
    const cli = run(['--version', '--no-color']);
    assert.equal(cli.status, 0, cli.stderr);
    assert.equal(cli.stdout, launcher.stdout);
  });

  it('wallet tool-describe --name network_info', () => {
    const result = run(['tool-describe', '--name', 'network_info', '--json']);
    assert.equal(result.status, 0, result.stderr);
    const described = JSON.parse(result.stdout) as { tools: { command: string }[] };
    assert.deepEqual(
      described.tools.map((tool) => tool.command),
      ['network-info'],
    );
  });

  it('wallet --get-tool-definition prints valid JSON and exits 0', () => {
    const result = run(['--get-tool-definition']);
    assert.equal(result.status, 0);
    assert.ok((JSON.parse(result.stdout) as { tool: { functions: unknown[] } }).tool.functions.length > 0);
  });

  it('an unknown command exits 2 with a suggestion on stderr only', () => {
    const result = run(['tool-descibe']);
    assert.equal(result.status, 2);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /Did you mean tool-describe\?/);
  });

  it('wallet setup claude-code --dry-run prints the entry as a diff, in a temporary HOME, and writes nothing', () => {
    const home = tempHome();
    try {
      const result = spawnSync(process.execPath, [WALLET_BIN, 'setup', 'claude-code', '--dry-run', '--read-only'], {
        env: { ...process.env, HOME: home, WALLET_HOME: join(home, 'data'), NO_COLOR: '1' },
        cwd: home,
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(result.status, 0, result.stderr);
      const file = join(home, '.claude.json');
      assert.ok(result.stdout.startsWith(`--- ${file}\n+++ ${file} (after)\n@@ -0,0 +1,16 @@\n+{\n`), result.stdout);
      assert.ok(
        result.stdout.includes(`+        ${JSON.stringify(WALLET_BIN)},\n+        "serve",\n+        "--read-only"\n`),
      );
      assert.ok(result.stdout.includes(`+      "command": ${JSON.stringify(process.execPath)},\n`));
      // The data directory of this run goes with it, so the agent's server uses the same one.
      assert.ok(
        result.stdout.includes(`+        "WALLET_HOME": ${JSON.stringify(join(home, 'data'))}\n`),
        result.stdout,
      );
      assert.match(result.stderr, /^Dry run: this would add 'wallet' in .*; nothing was written\.\n$/);
      assert.equal(existsSync(file), false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('wallet serve --help describes serve without serving', () => {
    const result = run(['serve', '--help']);
    assert.equal(result.status, 0);
    assert.match(result.stdout, /wallet serve — the wallet's tools over MCP, on stdio/);
  });

  it("prints the build's recorded help as the CLI prints it, to a pipe and to a terminal", () => {
    // bin/wallet.js answers `--help` and `<tool command> --help` from dist/help.json; with any
    // other flag (--no-color, --color) the bundle renders the same help itself.
    const same = (recorded: ReturnType<typeof runAs>, rendered: ReturnType<typeof runAs>): void => {
      assert.equal(recorded.status, 0, recorded.stderr);
      assert.equal(rendered.status, 0, rendered.stderr);
      assert.equal(recorded.stdout, rendered.stdout);
      assert.equal(recorded.stderr, '');
    };
    same(runAs(['--help']), runAs(['--help', '--no-color']));
    same(runAs(['-h', 'core_address_create']), runAs(['core-address-create', '--help', '--no-color']));
  });

  it('prints the recorded help on a terminal coloured as the CLI colours it', { skip: NO_TERMINAL }, () => {
    const same = (recorded: ReturnType<typeof runAs>, rendered: ReturnType<typeof runAs>): void => {
      assert.equal(recorded.status, 0, recorded.stderr);
      assert.equal(rendered.status, 0, rendered.stderr);
      assert.equal(recorded.stdout, rendered.stdout);
      assert.equal(recorded.stderr, '');
    };
    // On a terminal: coloured, as --color colours it; NO_COLOR keeps it plain.
    const coloured = runAs(['--help'], { tty: true });
    assert.ok(coloured.stdout.includes('\u001b[1mUsage:\u001b[22m'), coloured.stdout);
    same(coloured, runAs(['--help', '--color']));
    same(runAs(['evm-tx-send', '--help'], { tty: true }), runAs(['evm-tx-send', '--help', '--color']));
    same(runAs(['--help'], { tty: true, env: { NO_COLOR: '1' } }), runAs(['--help', '--no-color']));
  });

  it('a call the CLI stopped waiting for (--timeout) runs to its end, audit line included, before the process ends', () => {
    // bin/wallet.js ends a done command's process at once when nothing is left open; Node does
    // not list the keystore's scrypt, still running when the CLI gives up after 30 ms.
    const home = tempHome();
    try {
      const passphraseFile = passphraseFileIn(home, 'timeout test passphrase');
      const env = { ...process.env, WALLET_HOME: home, NO_COLOR: '1' };
      const cli = (args: string[]) =>
        spawnSync(process.execPath, [WALLET_BIN, ...args], { env, encoding: 'utf8', timeout: 60_000 });
      const walletFlags = ['--wallet-id', 'main', '--network', 'testnet'];
      assert.equal(
        cli(['core-wallet-create', '--alias', 'main', '--network', 'testnet', '--passphrase-file', passphraseFile])
          .status,
        0,
      );
      const { address } = JSON.parse(cli(['core-address-create', ...walletFlags, '--json']).stdout) as {
        address: string;
      };
      const signed = cli([
        'core-message-sign',
        ...walletFlags,
        '--address',
        address,
        '--message',
        'still signed',
        '--passphrase-file',
        passphraseFile,
        '--timeout',
        '30',
      ]);
      assert.equal(signed.status, 3, signed.stderr);
      assert.match(signed.stderr, /did not answer in time\nhint: It had 30 ms: give it longer with --timeout <ms>\./);
      const lines = readFileSync(join(home, 'audit.log'), 'utf8').trim().split('\n');
      assert.deepEqual(
        lines
          .map((line) => JSON.parse(line) as { tool: string; outcome: string; from: string })
          .map(({ tool, outcome, from }) => [tool, outcome, from]),
        [['core_message_sign', 'ok', address]],
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('takes the recorded help of its own version only', () => {
    const record = JSON.parse(readFileSync(join(ROOT, 'dist', 'help.json'), 'utf8')) as HelpRecord;
    const copy = tempHome();
    try {
      for (const part of ['bin', 'dist', 'package.json'])
        cpSync(join(ROOT, part), join(copy, part), { recursive: true });
      const bin = join(copy, 'bin', 'wallet.js');
      const recordWith = (version: string): void =>
        writeFileSync(
          join(copy, 'dist', 'help.json'),
          JSON.stringify({ ...record, version, plain: { ...record.plain, '': 'recorded\n' } }),
        );
      recordWith(record.version);
      assert.equal(runAs(['--help'], { bin }).stdout, 'recorded\n');
      recordWith('0.0.0-another');
      const rendered = runAs(['--help'], { bin });
      assert.equal(rendered.status, 0, rendered.stderr);
      assert.equal(rendered.stdout, record.plain['']);
      // A damaged record of this version, or none: the CLI renders the help.
      for (const damaged of ['null', JSON.stringify({ version: record.version, commands: null }), '{"version":']) {
        writeFileSync(join(copy, 'dist', 'help.json'), damaged);
        for (const args of [['--help'], ['core-tx-send', '--help']]) {
          const result = runAs(args, { bin });
          assert.equal(result.status, 0, `${damaged}: ${result.stderr}`);
          assert.equal(result.stdout, record.plain[args.length === 1 ? '' : 'core-tx-send'], damaged);
        }
      }
      rmSync(join(copy, 'dist', 'help.json'));
      assert.equal(runAs(['--help'], { bin }).stdout, record.plain['']);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

/**
 * Issue 41, as an attacker on the same machine and a script author would try it: a link planted
 * in the data directory, a policy file others can write, a data directory left open, and a value
 * starting with `-` that yargs would read as short flags (help, exit 0, from a spend command).
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { tempHome, wallet } from '../helpers/io.js';
import { SpawnedWallet } from '../helpers/spawned.js';

const homes: string[] = [];
after(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

/** A data directory, and a file outside it (mode `mode`) for a link to point to. */
function layout(outsideText: string, mode: number): { data: string; outside: string } {
  const root = tempHome();
  homes.push(root);
  const data = join(root, 'data');
  mkdirSync(data, { mode: 0o700 });
  const outside = join(root, 'outside');
  writeFileSync(outside, outsideText);
  chmodSync(outside, mode);
  return { data, outside };
}

const EVM_RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

describe('files of the data directory (issue 41)', () => {
  it('an audited call with audit.log a link to a file elsewhere is refused, the file untouched', async () => {
    const { data, outside } = layout('a system file\n', 0o644);
    symlinkSync(outside, join(data, 'audit.log'));
    // A call that fails anyway (no such wallet) was audited all the same: appended through the link.
    const { code, stdout, stderr } = await wallet(
      [
        'core-wallet-delete',
        '--wallet-id',
        'nosuch',
        '--network',
        'regtest',
        '--confirm-fingerprint',
        '00000000',
        '--yes',
      ],
      { home: data },
    );
    assert.equal(code, 6, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, /error: KEYSTORE_DAMAGED: The wallet file .*audit\.log is a symbolic link; refused/);
    assert.match(stderr, /hint: The wallet never follows a link/);
    assert.equal(readFileSync(outside, 'utf8'), 'a system file\n');
    assert.equal(statSync(outside).mode & 0o777, 0o644);
  });

  it('a config.json that links to a file others can write is refused, and never obeyed', async () => {
    const { data, outside } = layout('{"default_wallet": "attacker"}\n', 0o666);
    symlinkSync(outside, join(data, 'config.json'));
    const { code, stdout, stderr } = await wallet(['network-info'], { home: data });
    assert.equal(code, 6, stderr);
    assert.equal(stdout, '');
    assert.match(stderr, /config\.json is a symbolic link; refused/);
    assert.equal(readFileSync(outside, 'utf8'), '{"default_wallet": "attacker"}\n');
  });

  it('a config.json others can write is refused, naming the fix', async () => {
    const { data } = layout('', 0o600);
    writeFileSync(join(data, 'config.json'), '{}\n');
    chmodSync(join(data, 'config.json'), 0o666);
    const { code, stderr } = await wallet(['network-info'], { home: data });
    assert.equal(code, 6, stderr);
    assert.match(stderr, /config\.json is writable by others \(mode 0666\)/);
    assert.match(stderr, /hint: .*chmod 600 .*config\.json/);
  });

  it('a data directory others can write is made owner-only at start, with a warning', async () => {
    const { data } = layout('', 0o600);
    chmodSync(data, 0o777);
    const { code, stdout, stderr } = await wallet(['network-info', '--json'], { home: data });
    assert.equal(code, 0, stderr);
    assert.ok(JSON.parse(stdout), 'the result alone on stdout');
    assert.match(
      stderr,
      /^warning: the data directory .* was open to others \(mode 0777\); made it owner-only \(0700\)/,
    );
    assert.equal(statSync(data).mode & 0o777, 0o700);
  });

  it('so is it by wallet serve, before it serves anything', async () => {
    const { data } = layout('', 0o600);
    chmodSync(data, 0o777);
    const served = new SpawnedWallet(['serve'], { WALLET_HOME: data });
    served.child.stdin.end();
    assert.deepEqual(await served.exited, { code: 0, signal: null }, served.stderr);
    assert.match(served.stderr, /warning: the data directory .* was open to others \(mode 0777\); made it owner-only/);
    assert.equal(statSync(data).mode & 0o777, 0o700);
  });
});

describe('a value that starts with - (issue 41)', () => {
  const refusals: [string, string[], RegExp][] = [
    [
      '--amount-duffs -1dash',
      ['core-funds-send', '--amount-duffs', '-1dash', '--yes', '--json'],
      /--amount-duffs must be a whole number of duffs.*; got '-1dash'/,
    ],
    [
      '--value-wei -1ether',
      ['evm-funds-send', '--value-wei', '-1ether', '--to', EVM_RECIPIENT, '--network', 'local', '--yes'],
      /--value-wei must be a whole number of wei.*; got '-1ether'/,
    ],
    [
      '--address -hx',
      ['core-funds-send', '--network', 'regtest', '--address', '-hx', '--amount-duffs', '1000', '--yes', '--json'],
      /error: INVALID_PARAM/,
    ],
    [
      'an unknown flag before -hx',
      ['core-funds-send', '--to', '-hx', '--yes'],
      /Unknown flag --to for 'core-funds-send'/,
    ],
    // No flag before it: a bundle of short flags that merely holds an h is no request for help.
    [
      '-1dash with its flag forgotten',
      ['core-funds-send', '-1dash', '--yes', '--json'],
      /error: USAGE: Unknown flag -1/,
    ],
    ['an unknown short flag beside -h', ['evm-funds-send', '-xh'], /error: USAGE: Unknown flag -x/],
  ];
  for (const [label, argv, expected] of refusals) {
    it(`${label} is that flag's value, refused with exit 2, never help and exit 0`, async () => {
      const { code, stdout, stderr } = await wallet(argv);
      assert.equal(code, 2, stderr);
      assert.equal(stdout, '');
      assert.match(stderr, expected);
    });
  }

  it('short flags after a flag that takes none are still flags: --dry-run -h is help', async () => {
    const { code, stdout } = await wallet(['core-funds-send', '--dry-run', '-h']);
    assert.equal(code, 0);
    assert.match(stdout, /^wallet core-funds-send — /);
  });

  it('--help beside an unknown long flag is help; an unknown short-flag bundle is refused even beside -h', async () => {
    const help = await wallet(['core-funds-send', '--bogus', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^wallet core-funds-send — /);
    const refused = await wallet(['core-funds-send', '-1dash', '-h']);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /error: USAGE: Unknown flag -1 in '-1dash'\./);
  });
});

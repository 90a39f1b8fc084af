/**
 * The CLI against `wallet serve`'s lean default list (issue 18): it asks tool_describe once for
 * the full descriptions and output schemas, so help and human output are what they are against
 * the built-in server (which keeps the full profile); and it works against the compact profile.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tempHome, wallet } from '../helpers/io.js';
import { WALLET_BIN } from '../helpers/paths.js';

describe('wallet --server "wallet serve": the lean list made whole', () => {
  let home: string;
  const serve = (...flags: string[]): string => [process.execPath, WALLET_BIN, 'serve', ...flags].join(' ');
  const run = (argv: string[]) => wallet(argv, { home });
  before(() => {
    home = tempHome();
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('help shows the full description, as against the built-in server', async () => {
    const viaServe = await run(['--server', serve(), 'network-info', '--help']);
    assert.equal(viaServe.code, 0, viaServe.stderr);
    assert.match(viaServe.stdout, /Reads configuration only: it does not contact any node\./);
  });

  it('renders results by their output schema exactly as the built-in server does', async () => {
    for (const argv of [
      ['network-info', '--chain', 'core'],
      ['core-wallets-list'],
      ['tool-describe', '--name', 'core-address-validate'],
    ]) {
      const builtIn = await run(argv);
      const viaServe = await run(['--server', serve(), ...argv]);
      assert.equal(builtIn.code, 0, builtIn.stderr);
      assert.equal(viaServe.code, 0, viaServe.stderr);
      if (argv[0] !== 'tool-describe') assert.equal(viaServe.stdout, builtIn.stdout, argv.join(' '));
    }
  });

  it('asks tool_describe once: a later call on the same list reuses the completed list', async () => {
    const own = tempHome();
    try {
      // --debug shows the server's stderr, where `--log-level debug` logs each request by tool.
      const server = serve('--log-level', 'debug');
      const describes = (stderr: string) => stderr.split('\n').filter((line) => /tool=tool_describe\b/.test(line));
      const call = () => wallet(['--debug', '--server', server, 'network-info', '--chain', 'core'], { home: own });
      const first = await call();
      assert.equal(first.code, 0, first.stderr);
      assert.equal(describes(first.stderr).length, 1, first.stderr);
      const second = await call();
      assert.equal(second.code, 0, second.stderr);
      // The list was asked again (a call never runs on a cached list), tool_describe was not.
      assert.match(second.stderr, /method=tools\/list/);
      assert.deepEqual(describes(second.stderr), []);
      assert.equal(second.stdout, first.stdout);
      // A cached list completed for another list (or server version) is not reused.
      const cacheDir = join(own, 'cache', 'tools');
      for (const name of readdirSync(cacheDir).filter((file) => file.endsWith('.json'))) {
        const file = join(cacheDir, name);
        const cached = JSON.parse(readFileSync(file, 'utf8')) as { listed_hash?: string };
        assert.match(cached.listed_hash ?? '', /^[0-9a-f]{64}$/);
        writeFileSync(file, JSON.stringify({ ...cached, listed_hash: '0'.repeat(64) }));
      }
      const third = await call();
      assert.equal(third.code, 0, third.stderr);
      assert.equal(describes(third.stderr).length, 1, third.stderr);
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('takes coin amounts for arguments whose units the lean list leaves out (from tool_describe)', async () => {
    const argv = ['evm-tx-sign', '--address', 'nobody', '--unsigned-tx', '0x02', '--network', 'local'];
    const wrongUnit = await run(['--server', serve(), ...argv, '--max-fee-wei', '1dash']);
    assert.equal(wrongUnit.code, 2);
    assert.match(wrongUnit.stderr, /--max-fee-wei takes wei, or a coin amount in wei, gwei, ether, eth; got '1dash'/);
  });

  it('works against the compact profile: an action and its arguments', async () => {
    const result = await run([
      '--server',
      serve('--profile', 'compact'),
      'core-address',
      '--action',
      'validate',
      '--args-json',
      '{"address":"yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt"}',
      '--json',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal((JSON.parse(result.stdout) as { valid: boolean }).valid, true);
    const wrong = await run(['--server', serve('--profile', 'compact'), 'core-address', '--action', 'explode']);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /--action must be one of create, list, validate, discover, txs_list; got 'explode'/);
  });
});

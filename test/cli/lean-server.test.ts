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
import { definitionsDigestOfBuild } from '../../src/tools/definitions-digest.js';
import { ALL_TOOLS, compactTools } from '../../src/tools/index.js';
import { ROOT, WALLET_BIN } from '../helpers/paths.js';

const COMPILED_SERVE = join(ROOT, 'build', 'test', 'fixtures', 'compiled-serve.js');

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

  describe('asks tool_describe once, while its answer still holds', () => {
    let own: string;
    // --debug shows the server's stderr, where `--log-level debug` logs each request by tool.
    const server = serve('--log-level', 'debug');
    const describes = (stderr: string) => stderr.split('\n').filter((line) => /tool=tool_describe\b/.test(line));
    const call = (...argv: string[]) =>
      wallet(['--debug', '--server', server, ...(argv.length > 0 ? argv : ['network-info', '--chain', 'core'])], {
        home: own,
      });
    /** Rewrites every cached list of this home (one server here). */
    const editCache = (edit: (cached: Record<string, unknown>) => Record<string, unknown>) => {
      const dir = join(own, 'cache', 'tools');
      for (const name of readdirSync(dir).filter((file) => file.endsWith('.json'))) {
        const file = join(dir, name);
        writeFileSync(file, JSON.stringify(edit(JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>)));
      }
    };
    const cachedLists = (): { listed_hash?: string; tools: { name: string; _meta?: Record<string, unknown> }[] }[] => {
      const dir = join(own, 'cache', 'tools');
      return readdirSync(dir)
        .filter((file) => file.endsWith('.json'))
        .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as never);
    };
    before(async () => {
      own = tempHome();
      const first = await call();
      assert.equal(first.code, 0, first.stderr);
      assert.equal(describes(first.stderr).length, 1, first.stderr);
    });
    after(() => rmSync(own, { recursive: true, force: true }));

    it('lists with the digest of what tool_describe answers, as the build recorded it', () => {
      const [cached] = cachedLists();
      const describer = cached?.tools.find((tool) => tool.name === 'tool_describe');
      assert.match(definitionsDigestOfBuild(), /^[0-9a-f]{16}$/);
      assert.equal(describer?._meta?.['wallet/definitions-digest'], definitionsDigestOfBuild());
      assert.match(cached?.listed_hash ?? '', /^[0-9a-f]{64}$/);
    });

    it('a later call asks for the list again, not for the descriptions', async () => {
      const again = await call();
      assert.equal(again.code, 0, again.stderr);
      assert.match(again.stderr, /method=tools\/list/);
      assert.deepEqual(describes(again.stderr), []);
      // The list as completed this time (what the cache now holds: help reads it) has the full
      // description and the units, which only tool_describe gives.
      const help = await call('network-info', '--help');
      assert.match(help.stdout, /Reads configuration only: it does not contact any node\./);
      const argv = ['evm-tx-sign', '--address', 'nobody', '--unsigned-tx', '0x02', '--max-fee-wei', '1dash'];
      const wrongUnit = await call(...argv);
      assert.equal(wrongUnit.code, 2);
      assert.match(wrongUnit.stderr, /--max-fee-wei takes wei, or a coin amount in wei, gwei, ether, eth; got '1dash'/);
      assert.deepEqual(describes(wrongUnit.stderr), []);
    });

    it("a call runs on the fresh list's schema and hints, not on those kept in the cache", async () => {
      // Were the cached entries used, network_info would now be destructive (refused without
      // --yes), need --chain, and have a unit on an argument it does not have.
      editCache((cached) => ({
        ...cached,
        tools: (cached['tools'] as Record<string, unknown>[]).map((tool) => {
          if (tool['name'] !== 'network_info') return tool;
          const schema = tool['inputSchema'] as { properties?: Record<string, unknown> };
          return {
            ...tool,
            annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
            inputSchema: {
              ...schema,
              required: ['chain'],
              properties: { ...schema.properties, ghost_wei: { type: 'string', 'x-unit': 'wei' } },
            },
          };
        }),
      }));
      const result = await call('network-info');
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(describes(result.stderr), []);
    });

    it('asks again for another list, after the server announced a change, and on tools --refresh', async () => {
      editCache((cached) => ({ ...cached, listed_hash: '0'.repeat(64) }));
      const otherList = await call();
      assert.equal(otherList.code, 0, otherList.stderr);
      assert.equal(describes(otherList.stderr).length, 1, otherList.stderr);

      editCache((cached) => ({ ...cached, stale: true }));
      const changed = await call();
      assert.equal(changed.code, 0, changed.stderr);
      assert.equal(describes(changed.stderr).length, 1, changed.stderr);

      const refreshed = await call('tools', '--refresh');
      assert.equal(refreshed.code, 0, refreshed.stderr);
      assert.equal(describes(refreshed.stderr).length, 1, refreshed.stderr);
    });
  });

  it('asks a server without a definitions digest (not the bundle) on every call', async () => {
    const own = tempHome();
    try {
      const server = [process.execPath, COMPILED_SERVE, '--log-level', 'debug'].join(' ');
      for (let run = 0; run < 2; run++) {
        const result = await wallet(['--debug', '--server', server, 'network-info', '--chain', 'core'], { home: own });
        assert.equal(result.code, 0, result.stderr);
        const describes = result.stderr.split('\n').filter((line) => /tool=tool_describe\b/.test(line));
        assert.equal(describes.length, 1, result.stderr);
      }
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
    const served = ALL_TOOLS.filter((tool) => tool.localOnly !== true);
    const compact = compactTools(served).find((tool) => tool.name === 'core_address') ?? assert.fail('core_address');
    const actions = compact.actions.map(({ action }) => action).join(', ');
    assert.ok(wrong.stderr.includes(`--action must be one of ${actions}; got 'explode'`), wrong.stderr);
  });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { tempHome } from '../helpers/io.js';
import { CONFORMANCE_DIR, NODE_22, startHttpServe } from '../helpers/http-serve.js';
import { WALLET_BIN } from '../helpers/paths.js';

const INSPECTOR = join(CONFORMANCE_DIR, 'node_modules', '.bin', 'mcp-inspector');
const TOKEN = 'inspector-test-token-0123456789';

/** `mcp-inspector --cli …` on Node 22, its home (and catalog file) in a temp dir. */
function inspector(args: readonly string[], env: Record<string, string> = {}) {
  const home = tempHome();
  const run = spawnSync(NODE_22, [INSPECTOR, '--cli', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, 'catalog.json'), ...env },
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function json(stdout: string): Record<string, unknown> {
  return JSON.parse(stdout) as Record<string, unknown>;
}

type Listed = { tools: { name: string; annotations?: { readOnlyHint?: boolean } }[] };
type Called = { isError?: boolean; structuredContent: Record<string, unknown>; content: { text: string }[] };

describe('the MCP Inspector CLI (@modelcontextprotocol/inspector, on Node 22) drives wallet serve', () => {
  it('over stdio: lists the tools (no local-only ones) and calls one', () => {
    const home = tempHome();
    const env = { WALLET_HOME: home, WALLET_EVM_LOCAL_URL: 'http://127.0.0.1:9/' };
    const stdio = [process.execPath, WALLET_BIN, 'serve'];
    const env_ = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);

    const list = inspector([...env_, ...stdio, '--method', 'tools/list']);
    assert.equal(list.status, 0, list.stderr);
    const names = (json(list.stdout) as Listed).tools.map((tool) => tool.name);
    assert.ok(names.includes('core_funds_send') && names.includes('evm_balance_get'), names.join(' '));
    assert.ok(!names.includes('core_wallet_export') && !names.includes('evm_account_import'), 'no local-only tool');

    const call = inspector([
      ...env_,
      ...stdio,
      '--method',
      'tools/call',
      '--tool-name',
      'network_info',
      '--tool-arg',
      'chain=evm',
    ]);
    assert.equal(call.status, 0, call.stderr);
    const result = json(call.stdout) as Called;
    assert.notEqual(result.isError, true);
    const networks = result.structuredContent['networks'] as { network: string; endpoint: string | null }[];
    assert.deepEqual(
      networks.map((n) => n.network),
      ['mainnet', 'sepolia', 'local'],
    );
    assert.equal(networks.find((n) => n.network === 'local')?.endpoint, 'http://127.0.0.1:9/', 'the -e env reached it');
  });

  it('over HTTP with the bearer token: lists, calls, and gets a tool error as isError', async () => {
    const served = await startHttpServe([], { env: { MCP_API_KEY: TOKEN } });
    try {
      const auth = ['--transport', 'http', '--header', `Authorization: Bearer ${TOKEN}`];
      const list = inspector([served.url, ...auth, '--method', 'tools/list']);
      assert.equal(list.status, 0, list.stderr);
      const names = (json(list.stdout) as Listed).tools.map((tool) => tool.name);
      assert.ok(names.includes('core_funds_send'), names.join(' '));

      const call = inspector([served.url, ...auth, '--method', 'tools/call', '--tool-name', 'core_wallets_list']);
      assert.equal(call.status, 0, call.stderr);
      assert.deepEqual((json(call.stdout) as Called).structuredContent['wallets'], []);

      const failing = inspector([
        served.url,
        ...auth,
        '--method',
        'tools/call',
        '--tool-name',
        'core_address_create',
        '--tool-arg',
        'wallet_id=nope',
      ]);
      const failed = json(failing.stdout) as Called;
      assert.equal(failed.isError, true, failing.stdout);
      assert.match(failed.content[0]?.text ?? '', /WALLET_NOT_FOUND/);
    } finally {
      await served.stop();
    }
  });

  it('over HTTP without the token: refused, no tool list', async () => {
    const served = await startHttpServe([], { env: { MCP_API_KEY: TOKEN } });
    try {
      const list = inspector([served.url, '--transport', 'http', '--method', 'tools/list', '--stored-auth-only']);
      assert.notEqual(list.status, 0);
      assert.doesNotMatch(list.stdout, /core_funds_send/);
      assert.match(served.stderr(), /./, 'server still up');
    } finally {
      await served.stop();
    }
  });
});

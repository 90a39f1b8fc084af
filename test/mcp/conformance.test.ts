import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CONFORMANCE_DIR, NODE_22, startHttpServe } from '../helpers/http-serve.js';

const SUITE = join(CONFORMANCE_DIR, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const BASELINE = join(CONFORMANCE_DIR, 'expected-failures.yaml');

/** The scenarios the issue names, which must pass outright (not merely match the baseline). */
const REQUIRED = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection', 'server-sse-multiple-streams'];

type Check = { id: string; status: string; errorMessage?: string };

/** The scenario names of the baseline file (a YAML list under `server:`). */
function baselineScenarios(): string[] {
  return readFileSync(BASELINE, 'utf8')
    .split('\n')
    .map((line) => /^\s+-\s+([\w-]+)\s*$/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
}

describe('the official MCP conformance suite (@modelcontextprotocol/conformance, on Node 22)', () => {
  it('passes every applicable server scenario against wallet serve --http --read-only --no-auth', async () => {
    const served = await startHttpServe(['--read-only', '--no-auth']);
    const out = mkdtempSync(join(tmpdir(), 'wallet-conformance-'));
    try {
      const run = spawnSync(
        NODE_22,
        [SUITE, 'server', '--url', served.url, '--expected-failures', BASELINE, '--output-dir', out],
        { encoding: 'utf8', timeout: 120_000 },
      );
      assert.equal(run.status, 0, `suite exit ${run.status}\n${run.stdout}\n${run.stderr}\nserver: ${served.stderr()}`);
      assert.match(run.stdout, /Baseline check passed/);

      const results = new Map<string, Check[]>();
      for (const dir of readdirSync(out)) {
        const scenario = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(dir)?.[1];
        assert.ok(scenario, dir);
        results.set(scenario, JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[]);
      }
      for (const name of REQUIRED) {
        const checks = results.get(name);
        assert.ok(checks && checks.length > 0, `${name} did not run`);
        for (const check of checks) assert.equal(check.status, 'SUCCESS', `${name}/${check.id}: ${check.errorMessage}`);
      }
      // A scenario listed as not applicable must fail for that reason only: a method the wallet
      // does not offer, or a fixture tool it does not have, never a crash or a wrong answer.
      const baseline = baselineScenarios();
      assert.ok(baseline.length >= 20, 'baseline parsed');
      for (const name of baseline) {
        const checks = results.get(name);
        assert.ok(checks, `${name} did not run`);
        for (const check of checks.filter((c) => c.status !== 'SUCCESS')) {
          assert.match(
            check.errorMessage ?? '',
            /MCP error -32601: Method not found|MCP error -32602: Unknown tool: test_\w+\./,
            `${name}/${check.id}`,
          );
        }
      }
      assert.ok(results.size >= REQUIRED.length + baseline.length, `ran ${results.size} scenarios`);
    } finally {
      await served.stop();
    }
  });
});

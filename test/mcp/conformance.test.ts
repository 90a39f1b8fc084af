import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CONFORMANCE_DIR, NODE_22, startHttpServe } from '../helpers/http-serve.js';

const SUITE = join(CONFORMANCE_DIR, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const BASELINE = join(CONFORMANCE_DIR, 'expected-failures.yaml');
/** The suite's newest line (0.2), which has the 2026-07-28 tasks extension's scenarios. */
const NEXT_SUITE = join(CONFORMANCE_DIR, 'node_modules', 'conformance-next', 'dist', 'index.js');

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

  it('passes the tasks extension checks that apply (the 0.2 line)', async () => {
    const served = await startHttpServe(['--read-only', '--no-auth']);
    // Each scenario, and its checks that apply to the wallet: they must pass.
    const scenarios: Record<string, string[]> = {
      // The extension is declared, and tasks/* are refused (-32021) to a client that did not declare it.
      'tasks-capability-negotiation': ['tasks-extension-advertised', 'sep-2663-tasks-methods-non-declaring'],
      // No tasks/result or tasks/list (-32601); an unknown task id is -32602.
      'tasks-dispatch-and-envelope': [
        'sep-2663-tasks-result-removed-method-not-found',
        'tasks-removed-tasks-list',
        'sep-2663-tasks-get-invalid-task-id-32602',
      ],
      // A Mcp-Method header that does not match the body is refused.
      'tasks-request-headers': ['tasks-headers-reject-mismatched-method'],
    };
    try {
      for (const [scenario, required] of Object.entries(scenarios)) {
        const out = mkdtempSync(join(tmpdir(), 'wallet-conformance-tasks-'));
        const run = spawnSync(
          NODE_22,
          [NEXT_SUITE, 'server', '--url', served.url, '--scenario', scenario, '--output-dir', out],
          {
            encoding: 'utf8',
            timeout: 120_000,
          },
        );
        const [dir] = readdirSync(out);
        assert.ok(dir, `${scenario}: no results\n${run.stdout}\n${run.stderr}`);
        const checks = JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[];
        const status = new Map(checks.map((check) => [check.id, check]));
        for (const id of required) {
          assert.equal(status.get(id)?.status, 'SUCCESS', `${scenario}/${id}: ${status.get(id)?.errorMessage}`);
        }
        // The rest call the suite's fixture tools (slow_compute, greet, failing_job, …), which the
        // wallet does not have: they fail for that reason only (the wallet's own tasks are tested in
        // test/mcp/tasks.test.ts).
        for (const check of checks.filter((c) => c.status !== 'SUCCESS' && c.status !== 'SKIPPED')) {
          assert.match(
            check.errorMessage ?? '',
            /Unknown tool: \w+\.|fixture .* unavailable|tools\/call for \w+ returned error code -32602/,
            `${scenario}/${check.id}`,
          );
        }
      }
    } finally {
      await served.stop();
    }
  });
});

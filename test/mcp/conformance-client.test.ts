import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CONFORMANCE_DIR, NODE_22 } from '../helpers/http-serve.js';
import { ROOT } from '../helpers/paths.js';

// The client scenarios are in the 0.2 line (2026-07-28: input_required, request metadata,
// SEP-2243 headers), installed beside the pinned server suite as `conformance-next`.
const SUITE = join(CONFORMANCE_DIR, 'node_modules', 'conformance-next', 'dist', 'index.js');
const NOT_APPLICABLE = join(CONFORMANCE_DIR, 'client-not-applicable.yaml');
const DRIVER = join(ROOT, 'build', 'test', 'fixtures', 'conformance-client.js');

type Check = { id: string; status: string; errorMessage?: string };

function listedScenarios(): string[] {
  return readFileSync(NOT_APPLICABLE, 'utf8')
    .split('\n')
    .map((line) => /^\s+-\s+([\w/-]+)\s*$/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
}

/** The suite's client scenarios, from `list`: every one but auth/* (test/mcp/conformance-client-auth). */
function clientScenarios(): string[] {
  const run = spawnSync(NODE_22, [SUITE, 'list'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const section = run.stdout.split('Client scenarios')[1]?.split('\n\n')[0] ?? '';
  return [...section.matchAll(/^\s+-\s+(\S+)/gm)]
    .map((match) => match[1] ?? '')
    .filter((name) => !name.startsWith('auth/'));
}

function runScenario(scenario: string): { checks: Check[]; stderr: string } {
  const out = mkdtempSync(join(tmpdir(), 'wallet-conformance-client-'));
  try {
    const run = spawnSync(
      NODE_22,
      [SUITE, 'client', '--command', `${process.execPath} ${DRIVER}`, '--scenario', scenario, '-o', out],
      { encoding: 'utf8', timeout: 120_000 },
    );
    const [dir] = readdirSync(out);
    assert.ok(dir, `${scenario}: no results (suite exit ${run.status})\n${run.stdout}\n${run.stderr}`);
    return {
      checks: JSON.parse(readFileSync(join(out, dir, 'checks.json'), 'utf8')) as Check[],
      stderr: readFileSync(join(out, dir, 'stderr.txt'), 'utf8'),
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

describe('the official MCP conformance suite, client scenarios, with the wallet CLI as the client', () => {
  const notApplicable = listedScenarios();
  const scenarios = clientScenarios();

  it('lists every scenario it skips, and only scenarios the suite has', () => {
    assert.ok(scenarios.length >= 11, `found ${scenarios.join(', ')}`);
    // auth/* entries belong to test/mcp/conformance-client-auth.test.ts, which checks them.
    for (const name of notApplicable.filter((entry) => !entry.startsWith('auth/'))) {
      assert.ok(scenarios.includes(name), `${name} is not a client scenario`);
    }
  });

  for (const scenario of scenarios.filter((name) => !notApplicable.includes(name))) {
    it(`passes ${scenario}`, () => {
      const { checks, stderr } = runScenario(scenario);
      // INFO records traffic; SKIPPED is a check of what this client never does (declare roots,
      // list resources): neither passes nor fails anything.
      const judged = checks.filter((check) => check.status !== 'INFO' && check.status !== 'SKIPPED');
      assert.ok(judged.length > 0, `${scenario}: no checks\n${stderr}`);
      for (const check of judged) {
        assert.equal(check.status, 'SUCCESS', `${scenario}/${check.id}: ${check.errorMessage}\n${stderr}`);
      }
      if (scenario === 'elicitation-sep1034-client-defaults') {
        assert.match(stderr, /Answered with its defaults \(--accept-defaults\)/);
      }
      if (scenario === 'sep-2322-client-request-state') {
        // A 2026-07-28 result without resultType: the SDK rejects it, and the CLI says the client
        // did, not that the server refused (-32603) or could not be reached.
        assert.match(stderr, /error: ANSWER_REFUSED: the server's result was rejected by this client: .*resultType/);
        assert.doesNotMatch(stderr, /Cannot connect|-32603/);
      }
    });
  }
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CONFORMANCE_DIR, NODE_22 } from '../helpers/http-serve.js';
import { ROOT } from '../helpers/paths.js';

// The 0.2 line (`conformance-next`): the auth scenarios of 2026-07-28 (iss, authorization server
// migration, metadata issuer) and the DPoP and workload identity extensions are only there.
const SUITE = join(CONFORMANCE_DIR, 'node_modules', 'conformance-next', 'dist', 'index.js');
const NOT_APPLICABLE = join(CONFORMANCE_DIR, 'client-not-applicable.yaml');
/** The wallet CLI as the client under test: logs in where the scenario says how, then calls `test-tool`. */
const CLIENT = join(ROOT, 'test', 'fixtures', 'oauth', 'conformance-client.mjs');

type Check = { id: string; status: string; errorMessage?: string; description?: string };

/** The scenario names of the not-applicable list (a YAML list under `client:`). */
function notApplicable(): string[] {
  return readFileSync(NOT_APPLICABLE, 'utf8')
    .split('\n')
    .map((line) => /^\s+-\s+([\w/-]+)\s*$/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined);
}

/** Every `auth/*` client scenario of the installed suite, as it lists them (not restated here). */
function authScenarios(): string[] {
  const listed = spawnSync(NODE_22, [SUITE, 'list', '--client'], { encoding: 'utf8' });
  assert.equal(listed.status, 0, listed.stderr);
  return [...listed.stdout.matchAll(/^\s+-\s+(auth\/[\w-]+)/gm)].map((match) => match[1] as string);
}

describe('the conformance suite auth/* client scenarios, with the wallet CLI as the client', () => {
  it('passes every applicable one: discovery, registration, PKCE, scopes, step-up, refresh, machine clients', () => {
    const scenarios = authScenarios();
    assert.ok(scenarios.length >= 33, `listed ${scenarios.length} auth scenarios`);
    const skipped = notApplicable();
    for (const name of skipped.filter((entry) => entry.startsWith('auth/'))) {
      assert.ok(scenarios.includes(name), `${name} is listed as not applicable but the suite has no such scenario`);
    }
    const failures: string[] = [];
    let ran = 0;
    for (const scenario of scenarios.filter((name) => !skipped.includes(name))) {
      const out = mkdtempSync(join(tmpdir(), 'wallet-conformance-client-'));
      try {
        const run = spawnSync(
          NODE_22,
          [SUITE, 'client', '--command', `${process.execPath} ${CLIENT}`, '--scenario', scenario, '-o', out],
          { encoding: 'utf8', timeout: 90_000 },
        );
        ran++;
        const [dir] = readdirSync(join(out, 'auth'));
        const checks = dir ? (JSON.parse(readFileSync(join(out, 'auth', dir, 'checks.json'), 'utf8')) as Check[]) : [];
        const bad = checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
        // auth/dpop logs in and calls in two processes: one token for both means the second
        // signed with the key the token is bound to, kept with the login.
        const tokens = checks.filter((check) => check.id === 'token-request').length;
        if (scenario === 'auth/dpop' && tokens !== 1) bad.push({ id: 'token-request', status: `${tokens} tokens` });
        if (run.status !== 0 || checks.length === 0 || bad.length > 0) {
          const stderr = dir ? readFileSync(join(out, 'auth', dir, 'stderr.txt'), 'utf8') : run.stderr;
          failures.push(
            `${scenario} (exit ${run.status}): ${bad.map((c) => `${c.id}: ${c.errorMessage ?? c.description}`).join('; ')}\n${stderr}`,
          );
        }
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    }
    assert.deepEqual(failures, [], failures.join('\n'));
    assert.equal(ran + skipped.filter((name) => name.startsWith('auth/')).length, scenarios.length);
  });
});

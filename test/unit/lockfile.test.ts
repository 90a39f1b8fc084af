/**
 * `npm ci` refuses a lockfile that lacks any optional platform package of a dependency. The
 * registry this project is built from serves only anvil's linux-x64 package, so `npm install`
 * here drops the others from package-lock.json; they are kept by hand (CONTRIBUTING.md). This
 * test says so before CI's `npm ci` fails.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/paths.js';

type Lock = { packages: Record<string, { optionalDependencies?: Record<string, string>; version?: string }> };

describe('package-lock.json', () => {
  it('lists every optional platform package of @foundry-rs/anvil, so npm ci accepts it', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as Lock;
    const anvil = lock.packages['node_modules/@foundry-rs/anvil'];
    assert.ok(anvil?.optionalDependencies);
    for (const [name, version] of Object.entries(anvil.optionalDependencies)) {
      assert.equal(lock.packages[`node_modules/${name}`]?.version, version, `${name} is missing: see CONTRIBUTING.md`);
    }
  });
});

/**
 * The one-shot tuning of libraries a call may never load (src/shared/one-shot.ts): a tuning
 * registered before the process is known to be a short one runs when it becomes one, and one
 * registered after runs at once; each once. And the curve it tunes is the only secp256k1 of ours.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { tuneForOneShotProcess, whenOneShot } from '../../src/shared/one-shot.js';
import { ROOT } from '../helpers/paths.js';

describe('one-shot tuning', () => {
  it('runs a tuning registered before or after the process turns one-shot, once each', () => {
    // This file runs in a process of its own, which nothing has tuned yet.
    const ran: string[] = [];
    whenOneShot(() => ran.push('before'));
    assert.equal(ran.length, 0);
    tuneForOneShotProcess();
    assert.deepEqual(ran, ['before']);
    whenOneShot(() => ran.push('after'));
    assert.deepEqual(ran, ['before', 'after']);
    tuneForOneShotProcess();
    assert.deepEqual(ran, ['before', 'after']);
  });

  it('every module of ours takes the curve from src/domain/secp256k1.ts, which tunes it', () => {
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? sources(join(dir, entry.name))
          : entry.name.endsWith('.ts')
            ? [join(dir, entry.name)]
            : [],
      );
    const direct = sources(join(ROOT, 'src'))
      .filter((file) => /['"]@noble\/curves\/secp256k1(\.js)?['"]/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file));
    assert.deepEqual(direct, [join('src', 'domain', 'secp256k1.ts')]);
  });
});

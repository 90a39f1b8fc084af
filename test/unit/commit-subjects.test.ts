/**
 * The commit subject rule (scripts/check-commit-subjects.mjs, run by `npm run lint` and by
 * .githooks/commit-msg): a subject of 72 characters or more is refused, counted in characters,
 * and where there is no history to check, the check passes and says so.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/paths.js';

const SCRIPT = join(ROOT, 'scripts', 'check-commit-subjects.mjs');

type Check = {
  MAX_SUBJECT_LENGTH: number;
  isTooLong: (subject: string) => boolean;
  subjectOfMessage: (message: string) => string;
  offendingCommits: (log: string) => string[];
};
const check = (await import(pathToFileURL(SCRIPT).href)) as Check;

describe('commit subjects', () => {
  it('refuses 72 characters or more, counting characters, not bytes', () => {
    assert.equal(check.MAX_SUBJECT_LENGTH, 71);
    assert.equal(check.isTooLong('a'.repeat(71)), false);
    assert.equal(check.isTooLong('a'.repeat(72)), true);
    assert.equal(check.isTooLong(`${'a'.repeat(67)} → ×`), false, '71 characters, 74 bytes');
  });

  it("takes a message's first line that is neither blank nor a comment", () => {
    assert.equal(check.subjectOfMessage('Subject\n\nThe why.\n'), 'Subject');
    assert.equal(check.subjectOfMessage('\n# Please enter the commit message\n\nSubject \n# more\n'), 'Subject');
    assert.equal(check.subjectOfMessage('# only comments\n'), '');
  });

  it("names each commit of git log's output whose subject is too long", () => {
    const long = 'b'.repeat(72);
    const log = `abc1234\tA short one\ndef5678\t${long}\n0123abc\tTabs\tin a subject stay\n`;
    assert.deepEqual(check.offendingCommits(log), [`def5678 (72 characters): ${long}`]);
    assert.deepEqual(check.offendingCommits(''), []);
  });

  it('passes with a notice where there is no history (a tarball without .git)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'commit-subjects-'));
    try {
      mkdirSync(join(dir, 'scripts'));
      copyFileSync(SCRIPT, join(dir, 'scripts', 'check-commit-subjects.mjs'));
      const run = spawnSync(process.execPath, [join(dir, 'scripts', 'check-commit-subjects.mjs')], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, GIT_CEILING_DIRECTORIES: dir },
      });
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stderr, /skipped/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a message file with a long subject, as the commit-msg hook does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'commit-subjects-'));
    try {
      const file = join(dir, 'COMMIT_EDITMSG');
      const run = (message: string) => {
        writeFileSync(file, message);
        return spawnSync(process.execPath, [SCRIPT, '--message-file', file], { encoding: 'utf8' });
      };
      assert.equal(run('A subject\n\nbody\n').status, 0);
      const refused = run(`${'c'.repeat(72)}\n`);
      assert.equal(refused.status, 1);
      assert.match(refused.stderr, /72 characters/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

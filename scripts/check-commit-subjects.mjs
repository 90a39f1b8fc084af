#!/usr/bin/env node
// Commit subjects stay under 72 characters, so that `git log --oneline`, `git shortlog` and the
// forges show them whole (issue 35). Two uses:
//   node scripts/check-commit-subjects.mjs                      every commit after BASE_COMMIT
//                                                              (run by `npm run lint`)
//   node scripts/check-commit-subjects.mjs --message-file <f>  one message (.githooks/commit-msg)
// It fails naming each subject too long. Without git, or without the history (a tarball with no
// .git, a shallow clone that lacks BASE_COMMIT), it says so on stderr and passes: lint must run
// where the history is not there to check.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The longest subject allowed: 72 characters or more is refused. */
export const MAX_SUBJECT_LENGTH = 71;

/**
 * Commits after this one are checked. It was the tip when the rule came in; 100 commits before it
 * already break the rule, and history is not rewritten for it.
 */
export const BASE_COMMIT = 'c6d302f70399929a4065bb5498a61d390e61ec95';

/** Characters as a reader counts them: code points, so `×` or `→` is one. */
export const subjectLength = (subject) => [...subject].length;

/** Whether a subject is too long. */
export const isTooLong = (subject) => subjectLength(subject) > MAX_SUBJECT_LENGTH;

/**
 * The subject of a commit message as git records it: its first line that is neither blank nor a
 * comment (`#`, which git strips from a message edited in an editor).
 */
export function subjectOfMessage(message) {
  const line = message.split('\n').find((text) => text.trim() !== '' && !text.startsWith('#'));
  return (line ?? '').trim();
}

/**
 * The commits of `git log --format=%h%x09%s` whose subject is too long, as lines that name each
 * one: `<hash> (<n> characters): <subject>`.
 */
export function offendingCommits(log) {
  return log
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const tab = line.indexOf('\t');
      return { hash: line.slice(0, tab), subject: line.slice(tab + 1) };
    })
    .filter(({ subject }) => isTooLong(subject))
    .map(({ hash, subject }) => `${hash} (${subjectLength(subject)} characters): ${subject}`);
}

const git = (args, cwd) => spawnSync('git', args, { cwd, encoding: 'utf8' });

/** Checks the history after BASE_COMMIT in `root`; returns the exit code. */
function checkHistory(root) {
  const base = git(['rev-parse', '--verify', '--quiet', `${BASE_COMMIT}^{commit}`], root);
  if (base.error !== undefined || base.status !== 0) {
    const why = base.error !== undefined ? 'git is not available' : `no commit ${BASE_COMMIT} here`;
    console.error(`check-commit-subjects: skipped (${why}: no history to check)`);
    return 0;
  }
  const log = git(['log', '--format=%h%x09%s', `${BASE_COMMIT}..HEAD`], root);
  if (log.status !== 0) {
    console.error(`check-commit-subjects: skipped (git log failed: ${log.stderr.trim()})`);
    return 0;
  }
  const offending = offendingCommits(log.stdout);
  if (offending.length === 0) return 0;
  console.error(`Commit subjects of ${MAX_SUBJECT_LENGTH + 1} characters or more (keep them under 72):`);
  for (const line of offending) console.error(`  ${line}`);
  console.error('Reword them (git rebase -i, reword) before they are pushed.');
  return 1;
}

/** Checks one commit message file (the commit-msg hook's argument); returns the exit code. */
function checkMessageFile(file) {
  const subject = subjectOfMessage(readFileSync(file, 'utf8'));
  if (!isTooLong(subject)) return 0;
  console.error(
    `The commit subject has ${subjectLength(subject)} characters; keep it under 72 (the why goes in the body):`,
  );
  console.error(`  ${subject}`);
  console.error(`Your message is kept: git commit -e -F ${file}`);
  return 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [flag, file] = process.argv.slice(2);
  if (flag === '--message-file' && file !== undefined) process.exitCode = checkMessageFile(file);
  else if (flag === undefined) process.exitCode = checkHistory(join(import.meta.dirname, '..'));
  else {
    console.error('usage: check-commit-subjects.mjs [--message-file <file>]');
    process.exitCode = 2;
  }
}

/**
 * The docs stay true about the repository: every relative link in README.md, CONTRIBUTING.md,
 * completions/README.md and docs/ points at a file that exists (and a `#section` at one of its
 * headings), and every repository path written in backticks names a file or folder that exists;
 * docs/ARCHITECTURE.md, the map of the code, also cites only code names that occur in src/.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { ROOT } from '../helpers/paths.js';

const DOCS = [
  'README.md',
  'CONTRIBUTING.md',
  join('completions', 'README.md'),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name)),
];

/** The top-level folders a backticked path may start with. */
const ROOT_FOLDERS = ['src', 'test', 'docs', 'scripts', 'bench', 'bin', 'completions', 'conformance', '.ci', 'dist'];
/** What a file named in backticks ends with when it is one of ours (not a user's servers.json). */
const SOURCE_FILE = /\.(ts|mjs|cjs|js|md|yaml|sol)$/;

const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
const folders = new Set(
  tracked.flatMap((file) =>
    file
      .split('/')
      .slice(0, -1)
      .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
  ),
);

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  return new Set([...markdown.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => slug(match[1] ?? '')));
}

/** The prose of a markdown file: fenced code blocks dropped (examples, not claims about files). */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** A backticked word that names a repository path, or undefined. */
function repositoryPath(code: string): string | undefined {
  if (/[\s<>*…{}$=]/.test(code) || code.startsWith('-') || code.includes('://')) return undefined;
  const path = code.replace(/^\.\//, '').replace(/\/$/, '');
  const first = path.split('/')[0] ?? '';
  if (ROOT_FOLDERS.includes(first) && path.includes('/')) return path;
  if (SOURCE_FILE.test(path) && /^[\w./-]+$/.test(path)) return path;
  return undefined;
}

function pathExists(path: string): boolean {
  const first = path.split('/')[0] ?? '';
  // dist/ is made by `npm run build` (the unit tier needs it too), not kept in git.
  if (first === 'dist') return existsSync(join(ROOT, path));
  if (ROOT_FOLDERS.includes(first) || existsSync(join(ROOT, path))) {
    return tracked.includes(path) || folders.has(path);
  }
  // A path written relative to the section it sits in (`core/params.ts` under src/domain/).
  return tracked.some((file) => file === path || file.endsWith(`/${path}`));
}

/**
 * A backticked word that looks like a name in our code, or undefined: a camelCase or PascalCase
 * identifier with a capital inside (`definitionProblems`, `ToolCatalogue`, `runCli()`), or an
 * UPPER_SNAKE constant (`ALL_TOOLS`). Tool names (`core_funds_send`) and flags are not these.
 */
function codeName(code: string): string | undefined {
  const name = code.replace(/\(\)$/, '');
  if (/^[a-z][a-z0-9]*[A-Z]\w*$/.test(name) || /^[A-Z][a-z0-9]+[A-Z]\w*$/.test(name)) return name;
  if (/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(name)) return name;
  return undefined;
}

/**
 * The docs whose code names are checked. Only the map of the code: the other docs rightly cite
 * names from outside src/, which a search of src/ cannot vouch for: the build's plugins and the
 * launcher's functions (scripts/, bin/: `lazyAjv`, `printRecordedHelp`), the tests' helpers and
 * seeds (`withFreshPorts`, `FUZZ_SEED`), esbuild's and ERC-721's names (`keepNames`,
 * `setApprovalForAll`).
 */
const CODE_NAME_DOCS = [join('docs', 'ARCHITECTURE.md')];

describe('the docs name only what exists', () => {
  it('every relative link points at a file (and a heading) that exists', () => {
    const problems: string[] = [];
    for (const doc of DOCS) {
      const text = prose(readFileSync(join(ROOT, doc), 'utf8'));
      for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = match[1] ?? '';
        if (/^[a-z]+:/i.test(target)) continue;
        const [file = '', anchor] = target.split('#');
        const path = file === '' ? join(ROOT, doc) : join(ROOT, dirname(doc), file);
        if (!existsSync(path)) {
          problems.push(`${doc}: link to ${target}: no such file`);
          continue;
        }
        if (anchor !== undefined && path.endsWith('.md') && !anchorsOf(readFileSync(path, 'utf8')).has(anchor)) {
          problems.push(`${doc}: link to ${target}: no such heading in ${relative(ROOT, path)}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  it('every section named in words (`"Configuration" in docs/CLI.md`) is a heading of that file', () => {
    const problems: string[] = [];
    for (const doc of DOCS) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      for (const match of text.matchAll(/"([^"\n]+)" in ([\w/.-]+\.md)/g)) {
        const [, section = '', file = ''] = match;
        const path = join(ROOT, file);
        if (!existsSync(path)) problems.push(`${doc}: "${section}" in ${file}: no such file`);
        else if (!anchorsOf(readFileSync(path, 'utf8')).has(slug(section))) {
          problems.push(`${doc}: "${section}" in ${file}: no such heading`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  it('every repository path in backticks exists', () => {
    const problems: string[] = [];
    let checked = 0;
    for (const doc of DOCS) {
      const text = prose(readFileSync(join(ROOT, doc), 'utf8'));
      for (const match of text.matchAll(/`([^`\n]+)`/g)) {
        const path = repositoryPath(match[1] ?? '');
        if (path === undefined) continue;
        checked++;
        if (!pathExists(path)) problems.push(`${doc}: \`${match[1] ?? ''}\` does not exist`);
      }
    }
    assert.ok(checked > 50, `only ${checked} paths found: the pattern no longer sees them`);
    assert.deepEqual(problems, []);
  });

  it('every code name docs/ARCHITECTURE.md cites in backticks occurs in src/', () => {
    const sources = tracked
      .filter((file) => file.startsWith('src/'))
      .map((file) => readFileSync(join(ROOT, file), 'utf8'))
      .join('\n');
    const problems: string[] = [];
    let checked = 0;
    for (const doc of CODE_NAME_DOCS) {
      const text = prose(readFileSync(join(ROOT, doc), 'utf8'));
      for (const match of text.matchAll(/`([^`\n]+)`/g)) {
        const name = codeName(match[1] ?? '');
        if (name === undefined) continue;
        checked++;
        if (!new RegExp(`\\b${name}\\b`).test(sources)) problems.push(`${doc}: \`${name}\` occurs nowhere in src/`);
      }
    }
    assert.ok(checked > 10, `only ${checked} names found: the pattern no longer sees them`);
    assert.deepEqual(problems, []);
  });
});

describe('the maps stay maps (issue 35)', () => {
  // Budgets in lines: a newcomer reads them whole; the history of rounds lives in git.
  for (const [doc, budget] of [
    ['docs/ARCHITECTURE.md', 250],
    ['docs/PERFORMANCE.md', 300],
  ] as const) {
    it(`${doc} is under ${budget} lines`, () => {
      const lines = readFileSync(join(ROOT, doc), 'utf8').trimEnd().split('\n').length;
      assert.ok(lines < budget, `${doc} has ${lines} lines: keep it a map (under ${budget})`);
    });
  }
});

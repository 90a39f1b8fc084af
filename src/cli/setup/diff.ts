/**
 * A unified diff of two texts (`diff -u`'s format, 3 lines of context), or '' when they are equal.
 * The texts are compared by line, after their common start and end are set aside: an agent's
 * config changes in one place, and ~/.claude.json may be long.
 *
 * @example
 * unifiedDiff('a\nb\n', 'a\nc\n', 'x.json', 'x.json (new)')
 * // '--- x.json\n+++ x.json (new)\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n'
 */
export function unifiedDiff(before: string, after: string, beforeLabel: string, afterLabel: string): string {
  if (before === after) return '';
  const a = lines(before);
  const b = lines(after);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let end = 0;
  while (end < a.length - start && end < b.length - start && a[a.length - 1 - end] === b[b.length - 1 - end]) end++;
  const ops: Op[] = [
    ...a.slice(0, start).map((text): Op => ({ kind: ' ', text })),
    ...middle(a.slice(start, a.length - end), b.slice(start, b.length - end)),
    ...a.slice(a.length - end).map((text): Op => ({ kind: ' ', text })),
  ];
  return `--- ${beforeLabel}\n+++ ${afterLabel}\n${hunks(ops).join('')}`;
}

type Op = { kind: ' ' | '-' | '+'; text: string };

const CONTEXT = 3;

/** Lines with their ends; a last line without one says so, as diff does. */
function lines(text: string): string[] {
  if (text === '') return [];
  const parts = text.split('\n');
  const last = parts.pop() ?? '';
  const whole = parts.map((line) => `${line}\n`);
  return last === '' ? whole : [...whole, `${last}\n\\ No newline at end of file\n`];
}

/** The changed middle as removals, additions and kept lines: a longest common subsequence. */
function middle(a: readonly string[], b: readonly string[]): Op[] {
  const width = b.length + 1;
  const common = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i * width + j] =
        a[i] === b[j]
          ? (common[(i + 1) * width + j + 1] ?? 0) + 1
          : Math.max(common[(i + 1) * width + j] ?? 0, common[i * width + j + 1] ?? 0);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ kind: ' ', text: a[i++] ?? '' });
      j++;
    } else if (
      i < a.length &&
      (j === b.length || (common[(i + 1) * width + j] ?? 0) >= (common[i * width + j + 1] ?? 0))
    ) {
      // A removal first where either keeps as much: a change reads `-old` then `+new`, as diff prints it.
      ops.push({ kind: '-', text: a[i++] ?? '' });
    } else {
      ops.push({ kind: '+', text: b[j++] ?? '' });
    }
  }
  return ops;
}

function hunks(ops: readonly Op[]): string[] {
  const changed = ops.flatMap((op, index) => (op.kind === ' ' ? [] : [index]));
  const out: string[] = [];
  let at = 0;
  while (at < changed.length) {
    const first = changed[at] ?? 0;
    let last = first;
    while (at + 1 < changed.length && (changed[at + 1] ?? 0) - last <= 2 * CONTEXT) last = changed[++at] ?? last;
    at++;
    const from = Math.max(0, first - CONTEXT);
    const to = Math.min(ops.length, last + CONTEXT + 1);
    const before = ops.slice(0, from);
    const oldStart = before.filter((op) => op.kind !== '+').length;
    const newStart = before.filter((op) => op.kind !== '-').length;
    const body = ops.slice(from, to);
    const oldCount = body.filter((op) => op.kind !== '+').length;
    const newCount = body.filter((op) => op.kind !== '-').length;
    out.push(
      `@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@\n`,
      ...body.map((op) => `${op.kind}${op.text}`),
    );
  }
  return out;
}

/** `start,count` with diff's conventions: a count of 1 left out, an empty range at the line before. */
function range(start: number, count: number): string {
  if (count === 0) return `${start},0`;
  return count === 1 ? `${start + 1}` : `${start + 1},${count}`;
}

/** A key named like a credential, in JSON (`"GITHUB_TOKEN": "…"`) or TOML (`API_KEY = "…"`). */
const SECRET_NAME = '[^"\\s=:]*(?:token|secret|key|passw|pwd|auth|bearer|credential|cookie|session)[^"\\s=:]*';
const JSON_SECRET = new RegExp(`("${SECRET_NAME}"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'gi');
const TOML_SECRET = new RegExp(`(^|[\\s{,])(${SECRET_NAME}\\s*=\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'gim');
const BEARER = /\b(Bearer|Basic|token)\s+[A-Za-z0-9._~+/=-]{6,}/gi;
const USERINFO = /(:\/\/[^/\s:@"']*:)[^@\s/"']+@/g;

/**
 * A diff of an agent's config with the other servers' credentials hidden: the values of keys named
 * like tokens, keys or passwords, `Bearer …` headers and URL passwords. The lines around the
 * change are another server's (a minified file is one line): a dry run must not print its token.
 */
export function withSecretsMasked(diff: string): string {
  return diff
    .replace(JSON_SECRET, '$1"***"')
    .replace(TOML_SECRET, '$1$2"***"')
    .replace(BEARER, '$1 ***')
    .replace(USERINFO, '$1***@');
}

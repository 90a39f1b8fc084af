import { isRecord, type AgentFormat } from '../servers/agent-configs.js';
import { parseAgentFile } from '../servers/agent-syntax.js';
import { UsageError } from '../usage-error.js';

/** An entry as it goes into an agent's file: `{ type?, command, args }`, or what was there. */
export type AgentEntry = Readonly<Record<string, unknown>>;

/**
 * The servers of an agent's file (none for an empty or missing one), checked: a file that does not
 * parse, or whose servers are not an object, is refused and never written over.
 */
export async function serversOf(text: string, format: AgentFormat, path: string): Promise<Record<string, unknown>> {
  if (text.trim() === '') return {};
  const parsed = await parseAgentFile(text, format.syntax);
  const refuse = (problem: string): UsageError =>
    new UsageError(
      `${path} ${problem}; it was left as it is.`,
      'Fix the file by hand (or move it aside), then run wallet setup again.',
    );
  if (!parsed.ok) throw refuse(`is ${parsed.problem}`);
  if (!isRecord(parsed.document)) throw refuse('is not an object');
  const servers = parsed.document[format.serversKey];
  if (servers === undefined) return {};
  if (!isRecord(servers)) throw refuse(`has a "${format.serversKey}" that is not an object of servers`);
  return servers;
}

/**
 * The text of an agent's file with the server `name` set to `entry` (or taken out: undefined),
 * and nothing else changed: other servers, other settings, comments and layout stay as they are.
 * `keepOthers`: the entry is updated (its other keys, such as `env`, kept), not replaced.
 *
 * @example
 * await withEntry('{\n  "theme": "dark"\n}\n', AGENT_FORMATS['claude-desktop'], 'wallet', { command: 'wallet', args: ['serve'] }, false)
 * // '{\n  "theme": "dark",\n  "mcpServers": {\n    "wallet": {\n      "command": "wallet",\n …'
 */
export async function withEntry(
  text: string,
  format: AgentFormat,
  name: string,
  entry: AgentEntry | undefined,
  keepOthers: boolean,
): Promise<string> {
  const edit = { format, name, entry, keepOthers };
  return format.syntax === 'toml' ? withTomlEntry(text, edit) : withJsonEntry(text, edit);
}

/** One change to an agent's file: the server `name` of `format` set to `entry`, or taken out. */
type EntryEdit = {
  format: AgentFormat;
  name: string;
  entry: AgentEntry | undefined;
  keepOthers: boolean;
};

async function withJsonEntry(text: string, edit: EntryEdit): Promise<string> {
  const { format, name, entry, keepOthers } = edit;
  const { applyEdits, modify } = await import('jsonc-parser');
  let out = text.trim() === '' ? '{}\n' : text;
  const formattingOptions = formattingOf(out);
  const set = (path: string[], value: unknown): void => {
    out = applyEdits(out, modify(out, [format.serversKey, name, ...path], value, { formattingOptions }));
  };
  if (entry !== undefined && keepOthers) {
    // An object (`env`) is updated key by key: the user's own variables in it stay.
    for (const [key, value] of Object.entries(entry)) {
      if (isRecord(value)) for (const [inner, innerValue] of Object.entries(value)) set([key, inner], innerValue);
      else set([key], value);
    }
  } else set([], entry);
  return out;
}

/** The file's own indentation and line ends, for what is added to it. */
function formattingOf(text: string): { insertSpaces: boolean; tabSize: number; eol: string } {
  const indent = /^([ \t]+)\S/m.exec(text)?.[1] ?? '  ';
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return indent.startsWith('\t')
    ? { insertSpaces: false, tabSize: 1, eol }
    : { insertSpaces: true, tabSize: indent.length, eol };
}

// TOML is edited as text, table by table, so comments and other tables stay as written; the
// result is parsed again and must hold exactly the old document with this one change, or nothing
// is written (a layout this does not know, such as an inline `mcp_servers = { … }`, is refused).

/** A file with Windows line ends (CRLF) is edited with LF ones and written back with its own. */
async function withTomlEntry(text: string, edit: EntryEdit): Promise<string> {
  if (!text.includes('\r\n')) return withTomlEntryLf(text, edit);
  const edited = await withTomlEntryLf(text.replace(/\r\n/g, '\n'), edit);
  return edited.replace(/\n/g, '\r\n');
}

async function withTomlEntryLf(text: string, edit: EntryEdit): Promise<string> {
  const { format, name, entry, keepOthers } = edit;
  const { parse } = await import('smol-toml');
  const before = text.trim() === '' ? {} : parse(text);
  const servers = isRecord(before[format.serversKey]) ? (before[format.serversKey] as Record<string, unknown>) : {};
  const old = isRecord(servers[name]) ? servers[name] : undefined;
  const lines = text === '' ? [] : text.replace(/\n$/, '').split('\n');
  const serverBlocks = tableBlocks(lines).filter((block) => block.key[0] === format.serversKey);
  const blocks = serverBlocks.filter((block) => block.key[1] === name);
  if (old !== undefined && blocks.length === 0) throw inlineEntry(format, name);
  let expected: Record<string, unknown> | undefined;
  let out: string[];
  if (entry !== undefined && keepOthers && old !== undefined) {
    // An object (`env`) is merged with the old one, written inline; its old [….env] table goes.
    const merged: Record<string, unknown> = Object.fromEntries(
      Object.entries(entry).map(([key, value]) => [
        key,
        isRecord(value) && isRecord(old[key]) ? { ...old[key], ...value } : value,
      ]),
    );
    expected = { ...old, ...merged };
    const main = blocks.find((block) => block.key.length === 2);
    if (main === undefined) throw inlineEntry(format, name);
    const replacedTables = blocks.filter(
      (block) => block.key.length === 3 && isRecord(merged[block.key[2] ?? '']) && block !== main,
    );
    const dropped = (index: number): boolean =>
      replacedTables.some((block) => index >= block.start && index < block.end);
    const body = lines.slice(main.start + 1, main.end).filter(keptLine(Object.keys(merged)));
    out = [
      ...lines.slice(0, main.start + 1).filter((_, index) => !dropped(index)),
      ...tomlPairs(merged),
      ...body,
      ...lines.slice(main.end).filter((_, offset) => !dropped(main.end + offset)),
    ];
  } else {
    expected = entry === undefined ? undefined : { ...entry };
    const table = entry === undefined ? [] : [`[${format.serversKey}.${tomlKey(name)}]`, ...tomlPairs(entry)];
    const first = blocks[0];
    const lastServer = serverBlocks.at(-1);
    if (first === undefined && table.length === 0) out = lines;
    else if (first === undefined && lastServer !== undefined) {
      // After the other servers' tables, where a reader looks for it.
      out = [...lines.slice(0, lastServer.end), '', ...table, ...lines.slice(lastServer.end)];
    } else if (first === undefined) {
      out = [...lines, ...(lines.length > 0 && lines.at(-1) !== '' ? [''] : []), ...table];
    } else {
      // The new table where the old one began; every table of the old entry (its [….env] too) goes.
      out = lines.flatMap((line, index) => [
        ...(index === first.start ? table : []),
        ...(blocks.some((block) => index >= block.start && index < block.end) ? [] : [line]),
      ]);
      // A table taken out takes the blank line that set it apart with it.
      const gap = first.start - 1;
      if (table.length === 0 && out[gap] === '' && (out[gap + 1] ?? '') === '') out.splice(gap, 1);
    }
  }
  const result = out.length === 0 ? '' : `${out.join('\n')}\n`;
  const rest = Object.fromEntries(Object.entries(servers).filter(([key]) => key !== name));
  if (expected !== undefined) rest[name] = expected;
  const wanted = { ...before, [format.serversKey]: rest };
  let after: Record<string, unknown> | undefined;
  try {
    after = result.trim() === '' ? {} : parse(result);
  } catch {
    after = undefined;
  }
  if (after === undefined || canonical(after, format.serversKey) !== canonical(wanted, format.serversKey)) {
    throw inlineEntry(format, name);
  }
  return result;
}

function inlineEntry(format: AgentFormat, name: string): UsageError {
  return new UsageError(
    `The file writes ${format.serversKey}.${name} (or ${format.serversKey}) in a way this cannot edit safely; it was left as it is.`,
    `Write it as a [${format.serversKey}.${tomlKey(name)}] table by hand, or take it out, then run wallet setup again.`,
  );
}

/** A document as sorted JSON, an empty servers table the same as none. */
function canonical(document: Record<string, unknown>, serversKey: string): string {
  const servers = document[serversKey];
  const empty = isRecord(servers) && Object.keys(servers).length === 0;
  const copy = empty ? Object.fromEntries(Object.entries(document).filter(([key]) => key !== serversKey)) : document;
  return JSON.stringify(copy, (_, value: unknown) =>
    isRecord(value)
      ? Object.fromEntries(Object.entries(value).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : value,
  );
}

/** The key lines of an entry. */
function tomlPairs(entry: AgentEntry): string[] {
  return Object.entries(entry).map(([key, value]) => `${tomlKey(key)} = ${tomlValue(value)}`);
}

/** Text, lists and inline tables, as Codex writes them: TOML's basic strings are JSON's strings. */
function tomlValue(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(tomlValue).join(', ')}]`;
  if (isRecord(value)) {
    const pairs = Object.entries(value).map(([key, inner]) => `${tomlKey(key)} = ${tomlValue(inner)}`);
    return pairs.length === 0 ? '{}' : `{ ${pairs.join(', ')} }`;
  }
  return JSON.stringify(value);
}

function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

/** A line of a table's body that sets none of `keys` (a multi-line value of one of them is dropped whole). */
function keptLine(keys: readonly string[]): (line: string) => boolean {
  let inDropped = false;
  return (line) => {
    if (inDropped) {
      if (/^\s*\]/.test(line)) inDropped = false;
      return false;
    }
    const key = /^\s*("[^"]*"|[A-Za-z0-9_-]+)\s*=\s*(.*)$/.exec(line);
    if (key === null) return true;
    const unquoted = key[1]?.startsWith('"') ? (JSON.parse(key[1]) as string) : key[1];
    if (unquoted === undefined || !keys.includes(unquoted)) return true;
    inDropped = /^\[[^\]]*$/.test(key[2]?.trim() ?? '');
    return false;
  };
}

/**
 * Each `[table]` of the file: its key, its first line (the header) and the line after its last
 * (the next header's, less the blank and comment lines before it, which belong to what follows).
 */
function tableBlocks(lines: readonly string[]): { key: string[]; start: number; end: number }[] {
  const headers = lines.flatMap((line, index) => (/^\s*\[/.test(line) ? [index] : []));
  return headers.flatMap((start, position) => {
    let end = headers[position + 1] ?? lines.length;
    while (end > start + 1 && /^\s*(#.*)?$/.test(lines[end - 1] ?? '')) end--;
    const header = /^\s*\[(?!\[)(.*)\]\s*(#.*)?$/.exec(lines[start] ?? '');
    const key = header?.[1] === undefined ? undefined : keySegments(header[1]);
    return key === undefined ? [] : [{ key, start, end }];
  });
}

/** `a."b.c".d` as ['a', 'b.c', 'd']; undefined when it is no key this reads. */
function keySegments(key: string): string[] | undefined {
  const pattern = /\s*("(?:[^"\\]|\\.)*"|'[^']*'|[A-Za-z0-9_-]+)\s*(\.|$)/y;
  const segments: string[] = [];
  for (;;) {
    const match = pattern.exec(key);
    if (match === null) return undefined;
    const word = match[1] ?? '';
    segments.push(
      word.startsWith('"') ? (JSON.parse(word) as string) : word.startsWith("'") ? word.slice(1, -1) : word,
    );
    if (match[2] === '') return segments;
  }
}

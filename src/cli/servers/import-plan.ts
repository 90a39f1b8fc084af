import {
  isHttpEntry,
  SERVER_NAME,
  SERVER_NAME_RULE,
  urlCarriesCredentials,
  type NamedServers,
  type ServerEntry,
} from './config.js';
import type { ImportCandidate } from './agent-configs.js';

export type ImportOutcome =
  | {
      name: string;
      source: string;
      result: 'imported' | 'replaced';
      transport: 'stdio' | 'http';
      ignoredKeys: string[];
    }
  | { name: string; source: string; result: 'skipped'; reason: string };

/**
 * What importing `candidates` into `existing` gives, without touching any file: the first server
 * of a name wins within one import; a name already saved is kept unless `overwrite`.
 *
 * @example
 * planImport({}, [{ name: 'gh', source: 'a.json', entry: { command: 'gh-mcp' }, ignoredKeys: [] }], false)
 * // { servers: { gh: { command: 'gh-mcp' } }, outcomes: [{ name: 'gh', source: 'a.json', result: 'imported', … }] }
 */
export function planImport(
  existing: Readonly<NamedServers>,
  candidates: readonly ImportCandidate[],
  overwrite: boolean,
): { servers: NamedServers; outcomes: ImportOutcome[]; changed: boolean } {
  const servers: NamedServers = { ...existing };
  const outcomes: ImportOutcome[] = [];
  const takenBy = new Map<string, string>();
  const skip = (candidate: ImportCandidate, reason: string): void => {
    outcomes.push({ name: candidate.name, source: candidate.source, result: 'skipped', reason });
  };
  for (const candidate of candidates) {
    const { name } = candidate;
    const earlier = takenBy.get(name);
    const saved = Object.hasOwn(existing, name) ? existing[name] : undefined;
    if ('skip' in candidate) skip(candidate, candidate.skip);
    else if (!SERVER_NAME.test(name)) skip(candidate, `not a server name here: ${SERVER_NAME_RULE}`);
    else if (isHttpEntry(candidate.entry) && urlCarriesCredentials(candidate.entry.url))
      skip(candidate, 'its url carries a user or password, which a connection refuses: give them as a header');
    else if (earlier !== undefined) skip(candidate, `the same name comes first in ${earlier}`);
    else if (saved !== undefined && sameEntry(saved, candidate.entry)) {
      takenBy.set(name, candidate.source);
      skip(candidate, 'already saved, identical');
    } else if (saved !== undefined && !overwrite) {
      takenBy.set(name, candidate.source);
      skip(candidate, 'a different server of this name is saved (--overwrite replaces it)');
    } else {
      takenBy.set(name, candidate.source);
      servers[name] = candidate.entry;
      outcomes.push({
        name,
        source: candidate.source,
        result: saved === undefined ? 'imported' : 'replaced',
        transport: isHttpEntry(candidate.entry) ? 'http' : 'stdio',
        ignoredKeys: candidate.ignoredKeys,
      });
    }
  }
  return { servers, outcomes, changed: outcomes.some((outcome) => outcome.result !== 'skipped') };
}

/** Same server, whatever the key order or an `args: []` left out. */
function sameEntry(a: ServerEntry, b: ServerEntry): boolean {
  return JSON.stringify(normalized(a)) === JSON.stringify(normalized(b));
}

function normalized(entry: ServerEntry): unknown {
  const sorted = (record: Readonly<Record<string, string>> | undefined): [string, string][] =>
    Object.entries(record ?? {}).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  return isHttpEntry(entry)
    ? { url: entry.url, headers: sorted(entry.headers) }
    : { command: entry.command, args: entry.args ?? [], env: sorted(entry.env) };
}

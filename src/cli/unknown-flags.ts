import type { CliFlag } from './global-flags.js';
import { closestNames } from './suggest.js';
import { UsageError } from './usage-error.js';

/**
 * Refuses flags the command does not take, and stray positional words after the command,
 * suggesting the closest flag. (yargs' own strict mode reports in text; we want the flag named.)
 * A command with secret fields never has a stray word echoed: it may be a mnemonic's second word.
 */
export function rejectUnknownFlags(
  parsed: Readonly<Record<string, unknown>>,
  flags: readonly Pick<CliFlag, 'name'>[],
  command: string,
  { echoStrayWords = true }: { echoStrayWords?: boolean } = {},
): void {
  const known = new Set(flags.map((flag) => flag.name));
  for (const key of Object.keys(parsed)) {
    if (key === '_' || key === '$0' || known.has(key)) continue;
    const near = closestNames(key, [...known]);
    throw new UsageError(
      `Unknown flag --${key} for '${command}'.`,
      near.length > 0
        ? `Did you mean ${near.map((name) => `--${name}`).join(' or ')}?`
        : `See 'wallet ${command} --help'.`,
    );
  }
  const positionals = (parsed['_'] as unknown[] | undefined) ?? [];
  const extra = positionals.slice(1);
  if (extra.length > 0) {
    throw new UsageError(
      echoStrayWords
        ? `Unexpected argument '${String(extra[0])}' after '${command}'.`
        : `Unexpected argument after '${command}' (not shown: this command takes secrets).`,
      'Commands take flags only, e.g. --wallet-id main.',
    );
  }
}

/**
 * Refuses a single-value flag given twice (`--listen A --listen B`): the parser would collect both
 * and the command would use one, or their text joined (`debug,off`), without a word.
 */
export function rejectRepeatedFlags(parsed: Readonly<Record<string, unknown>>, flags: readonly CliFlag[]): void {
  for (const flag of flags) {
    if (flag.type === 'string' && Array.isArray(parsed[flag.name])) {
      throw new UsageError(`--${flag.name} was given more than once.`, `Give --${flag.name} one value.`);
    }
  }
}

/**
 * Refuses an unknown flag before the command word (`wallet --jsn network-info`), suggesting the
 * closest global flag. The parser would take it, and even the next word as its value, so the
 * command would be lost and the root help printed with exit 0.
 */
export function rejectUnknownGlobalFlags(argv: readonly string[], flags: readonly CliFlag[]): void {
  const byName = new Map<string, CliFlag>();
  for (const flag of flags) {
    byName.set(flag.name, flag);
    if (flag.alias !== undefined) byName.set(flag.alias, flag);
  }
  for (let index = 0; index < argv.length; index++) {
    const word = argv[index] ?? '';
    if (word === '--' || !word.startsWith('-') || word === '-') return;
    const long = word.startsWith('--');
    const names = long ? [word.slice(2).split('=')[0] ?? ''] : [...(word.slice(1).split('=')[0] ?? '')];
    for (const name of names) {
      const flag = byName.get(name) ?? (long && name.startsWith('no-') ? byName.get(name.slice(3)) : undefined);
      if (flag === undefined || (name.startsWith('no-') && flag.type !== 'boolean' && !byName.has(name))) {
        const near = closestNames(name, [...flags.map((candidate) => candidate.name)]);
        throw new UsageError(
          `Unknown flag ${long ? '--' : '-'}${name}.`,
          near.length > 0
            ? `Did you mean ${near.map((candidate) => `--${candidate}`).join(' or ')}?`
            : "See 'wallet --help'.",
        );
      }
      if (flag.type !== 'boolean' && !word.includes('=')) index++;
    }
  }
}

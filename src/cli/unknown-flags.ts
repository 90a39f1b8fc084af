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

import { GLOBAL_FLAGS, parseFlags, readGlobals, type GlobalOptions } from './global-flags.js';
import { rejectRepeatedFlags, rejectUnknownGlobalFlags } from './unknown-flags.js';

/**
 * The global flags of a command line and its verb (the first word that is no flag), checked as
 * every run checks them first: an unknown global flag before the verb, a repeated one, or a bad
 * value is a usage error. `runCli`, `wallet serve`'s own entry (`serve-main.ts`) and the early
 * spawn (`src/startup/ahead.ts`) all start here.
 */
export function readCommandLine(argv: readonly string[]): { globals: GlobalOptions; verb: string | undefined } {
  rejectUnknownGlobalFlags(argv, GLOBAL_FLAGS);
  const first = parseFlags(argv, GLOBAL_FLAGS);
  rejectRepeatedFlags(first, GLOBAL_FLAGS);
  return { globals: readGlobals(first), verb: first._.map(String)[0] };
}

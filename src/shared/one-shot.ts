import { config as zodConfig } from 'zod';

let oneShot = false;
const tunings: (() => void)[] = [];

/**
 * Tunes libraries for a process that makes a call or two and exits (a CLI command), where their
 * defaults are made for long-lived ones (`wallet serve` keeps them). Saves ~25 ms a call
 * (docs/PERFORMANCE.md). Once per process.
 * - zod compiles a fast path (`new Function`) for each object schema on its first parse: it pays
 *   off over thousands of parses, never over one.
 * - Libraries a call may not load at all register their tuning with {@link whenOneShot}, which
 *   runs it when both the library is loaded and the process is known to be a short one.
 */
export function tuneForOneShotProcess(): void {
  if (oneShot) return;
  oneShot = true;
  zodConfig({ jitless: true });
  for (const tune of tunings.splice(0)) tune();
}

/** Runs `tune` now if this is a one-shot process, else if and when it becomes one. */
export function whenOneShot(tune: () => void): void {
  if (oneShot) tune();
  else tunings.push(tune);
}

import { secp256k1 } from '@noble/curves/secp256k1.js';
import { config as zodConfig } from 'zod';

let tuned = false;

/**
 * Tunes two libraries for a process that makes a call or two and exits (a CLI command), where
 * their defaults are made for long-lived ones (`wallet serve` keeps them). Saves ~25 ms a call
 * (docs/PERFORMANCE.md). Once per process: a second call would rebuild noble's table.
 * - zod compiles a fast path (`new Function`) for each object schema on its first parse: it pays
 *   off over thousands of parses, never over one.
 * - noble builds a table of multiples of secp256k1's generator on the first multiplication: 2,080
 *   points with its default window of 6, ~12 ms, for one or two HD derivations; window 4 needs
 *   776 and still multiplies in constant time (a few microseconds more per multiplication).
 *   (viem carries its own copy of noble, which this leaves alone.)
 */
export function tuneForOneShotProcess(): void {
  if (tuned) return;
  tuned = true;
  zodConfig({ jitless: true });
  secp256k1.Point.BASE.precompute(4);
}

import { secp256k1 } from '@noble/curves/secp256k1.js';
import { config as zodConfig } from 'zod';

/**
 * Tunes two libraries for a process that makes a call or two and exits (a CLI command), where
 * their defaults are made for long-lived ones (`wallet serve` keeps them). Saves ~30 ms a call
 * (docs/PERFORMANCE.md).
 * - zod compiles a fast path (`new Function`) for each object schema on its first parse: it pays
 *   off over thousands of parses, never over one.
 * - noble builds a table of 4,224 multiples of secp256k1's generator (window 8) on the first
 *   multiplication, ~20 ms, for one or two derivations; window 4 needs 520 and still multiplies
 *   in constant time (a few microseconds more per multiplication).
 */
export function tuneForOneShotProcess(): void {
  zodConfig({ jitless: true });
  secp256k1.Point.BASE.precompute(4);
}

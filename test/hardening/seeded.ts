/**
 * Seeded randomness for the hardening tests: the same seed gives the same kill schedule and the
 * same choice of operations, so a failure can be replayed (`HARDENING_SEED=<n>`). `npm test` uses a
 * fixed seed, so it is the same run every time; `HARDENING_SEED=random` picks a fresh one (printed
 * by the test for replay).
 */

/** The seed of every run that names none: a fixed one, so that `npm test` never varies. */
const DEFAULT_SEED = 20_260_728;

/** mulberry32: a small, fast 32-bit PRNG; returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An integer in [min, max]. */
export function between(random: () => number, min: number, max: number): number {
  return min + Math.floor(random() * (max - min + 1));
}

/** The seed from `HARDENING_SEED` (a number, or `random` for a fresh one), else {@link DEFAULT_SEED}. */
export function hardeningSeed(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const given = env['HARDENING_SEED'];
  if (given === 'random') return Math.floor(Math.random() * 2 ** 32) >>> 0;
  if (given !== undefined && /^\d+$/.test(given)) return Number(given) >>> 0;
  if (given !== undefined && given !== '')
    throw new Error(`HARDENING_SEED must be a number or 'random'; got '${given}'.`);
  return DEFAULT_SEED;
}

import { secp256k1 } from '@noble/curves/secp256k1.js';
import { whenOneShot } from '../shared/one-shot.js';

/**
 * noble's secp256k1 (the one `@scure/bip32` uses too), imported from here by every module of ours
 * that works on the curve, so that loading it also applies the one-shot tuning: noble builds a
 * table of multiples of the generator on the first multiplication, 2,080 points with its default
 * window of 6, ~12 ms, for one or two HD derivations; window 4 needs 776 and still multiplies in
 * constant time (a few microseconds more per multiplication). A call that never touches the curve
 * (a balance, an address check) does not load noble's curve code at all. viem carries its own copy
 * of noble, which this leaves alone.
 */
whenOneShot(() => secp256k1.Point.BASE.precompute(4));

export { secp256k1 };

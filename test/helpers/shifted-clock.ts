/**
 * The client's clock set to a recording's time, honestly: the SDK checks an answer's time (signed
 * by the quorum) against the local clock, and its wasm reads both `Date.now()` and `new Date()`,
 * so both are shifted, for the duration of one call only.
 */
export async function withClockAt<T>(timeMs: number, call: () => Promise<T>): Promise<T> {
  const RealDate = globalThis.Date;
  const offset = timeMs - RealDate.now();
  class ShiftedDate extends RealDate {
    constructor(...args: [] | [string | number | Date]) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(args[0]);
    }
    static override now(): number {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = ShiftedDate as DateConstructor;
  try {
    return await call();
  } finally {
    globalThis.Date = RealDate;
  }
}

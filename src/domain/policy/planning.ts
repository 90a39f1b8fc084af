import { AsyncLocalStorage } from 'node:async_hooks';
import type { CountedSpend, LedgerPlace, SpendingPolicy } from './spending-policy.js';

/** One spend a plan would make, as the policy counts it, with the rules it falls under. */
export type PlannedSpend = {
  /** Where the spend's ledgers are: the data dir (files) or the shared state store. */
  place: LedgerPlace;
  policy: SpendingPolicy | null;
  spend: CountedSpend;
};

const planning = new AsyncLocalStorage<PlannedSpend[]>();

/**
 * Runs a plan (a dry run: it signs nothing) and collects, as data, every spend the policy checked
 * on its way: what `wallet serve` then decides the call on, once (see decideForAgent), instead of
 * running the call as the agent's to see whether the policy refuses it.
 *
 * @example
 * const { value: planned, spends } = await collectPlannedSpends(() => dryRun());
 */
export async function collectPlannedSpends<T>(plan: () => Promise<T>): Promise<{ value: T; spends: PlannedSpend[] }> {
  const spends: PlannedSpend[] = [];
  const value = await planning.run(spends, plan);
  return { value, spends };
}

/** Notes a spend the policy checked, when a plan is being collected (elsewhere: nothing). */
export function notePlannedSpend(place: LedgerPlace, policy: SpendingPolicy | null, spend: CountedSpend): void {
  planning.getStore()?.push({ place, policy, spend });
}

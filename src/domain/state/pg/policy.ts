import { WalletError } from '../../errors.js';
import { inTransaction, query, type PgPools } from './client.js';

/** One network's policy as config.json states it, under its config path (`evm.networks.local.policy`). */
export type StatedPolicy = { key: string; policy: unknown };

/**
 * Checks this replica's policies against those the store recorded: a network's policy seen first
 * is recorded; one that differs from the record refuses the start, naming the first key that
 * differs. Every replica so enforces one policy: a cap raised on one machine alone lifts nothing.
 */
export async function checkPolicies(pools: PgPools, stated: readonly StatedPolicy[]): Promise<void> {
  if (stated.length === 0) return;
  const recorded = await inTransaction(pools, async (client) => {
    for (const { key, policy } of stated) {
      await client.query('INSERT INTO wallet_policies (key, policy) VALUES ($1, $2::jsonb) ON CONFLICT DO NOTHING', [
        key,
        JSON.stringify(policy),
      ]);
    }
    const rows = await client.query<{ key: string; policy: unknown }>(
      'SELECT key, policy FROM wallet_policies WHERE key = ANY($1)',
      [stated.map((entry) => entry.key)],
    );
    return new Map(rows.rows.map((row) => [row.key, row.policy]));
  });
  for (const { key, policy } of stated) {
    const differs = firstDifference(key, recorded.get(key), policy);
    if (differs !== undefined) {
      throw new WalletError(
        'POLICY_VIOLATION',
        `This replica's ${key} differs from the policy the state store ${pools.shown} recorded, at ${differs}: it does not start.`,
        {
          hint: 'Deploy the same config.json policy to every replica; after changing it on purpose everywhere, record it with `wallet state policy-record`.',
        },
      );
    }
  }
}

/** Records this replica's policies as the store's, replacing what it had (the owner changed them on purpose). */
export async function recordPolicies(pools: PgPools, stated: readonly StatedPolicy[]): Promise<void> {
  for (const { key, policy } of stated) {
    await query(
      pools,
      `INSERT INTO wallet_policies (key, policy) VALUES ($1, $2::jsonb)
       ON CONFLICT (key) DO UPDATE SET policy = excluded.policy, recorded_at = now()`,
      [key, JSON.stringify(policy)],
    );
  }
}

/** The path of the first leaf where `a` and `b` differ (keys in order), or undefined when they are equal. */
export function firstDifference(path: string, a: unknown, b: unknown): string | undefined {
  const isObject = (value: unknown): value is Record<string, unknown> =>
    typeof value === 'object' && value !== null && !Array.isArray(value);
  if (isObject(a) && isObject(b)) {
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const found = firstDifference(`${path}.${key}`, a[key], b[key]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  return JSON.stringify(a) === JSON.stringify(b) ? undefined : path;
}

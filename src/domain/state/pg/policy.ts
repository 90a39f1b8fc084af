import { WalletError } from '../../errors.js';
import { inTransaction, type PgPools } from './client.js';

/** One network's policy as config.json states it, under its config path (`evm.networks.local.policy`). */
export type StatedPolicy = { key: string; policy: unknown };

/**
 * Checks this replica's policies against those the store recorded: a network's policy seen first
 * is recorded; one that differs from the record refuses the start, naming the first key that
 * differs; a policy the store recorded that this replica's config lacks (a network without a
 * policy has no caps) refuses it too, naming it. Every replica so enforces one policy: a cap
 * raised, or dropped, on one machine alone lifts nothing.
 */
export async function checkPolicies(pools: PgPools, stated: readonly StatedPolicy[]): Promise<void> {
  const recorded = await inTransaction(pools, async (client) => {
    for (const { key, policy } of stated) {
      await client.query('INSERT INTO wallet_policies (key, policy) VALUES ($1, $2::jsonb) ON CONFLICT DO NOTHING', [
        key,
        JSON.stringify(policy),
      ]);
    }
    const rows = await client.query<{ key: string; policy: unknown }>(
      'SELECT key, policy FROM wallet_policies ORDER BY key',
    );
    return new Map(rows.rows.map((row) => [row.key, row.policy]));
  });
  const mine = new Set(stated.map((entry) => entry.key));
  const missing = [...recorded.keys()].find((key) => !mine.has(key));
  if (missing !== undefined) {
    throw new WalletError(
      'POLICY_VIOLATION',
      `This replica's config.json has no ${missing}, which the state store ${pools.shown} recorded: it does not start.`,
      {
        hint: 'Deploy the same config.json policy to every replica; after removing it on purpose everywhere, record the policies with `wallet state policy-record`.',
      },
    );
  }
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

/**
 * Records this replica's policies as the store's, replacing all it had (the owner changed them on
 * purpose): a recorded policy this config lacks is dropped.
 */
export async function recordPolicies(pools: PgPools, stated: readonly StatedPolicy[]): Promise<void> {
  await inTransaction(pools, async (client) => {
    await client.query('DELETE FROM wallet_policies WHERE NOT (key = ANY($1))', [stated.map((entry) => entry.key)]);
    for (const { key, policy } of stated) {
      await client.query(
        `INSERT INTO wallet_policies (key, policy) VALUES ($1, $2::jsonb)
         ON CONFLICT (key) DO UPDATE SET policy = excluded.policy, recorded_at = now()`,
        [key, JSON.stringify(policy)],
      );
    }
  });
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

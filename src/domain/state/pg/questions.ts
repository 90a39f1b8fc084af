import { nodeCrypto } from '../../../shared/node-crypto.js';
import { WalletError } from '../../errors.js';
import type { SharedQuestions } from '../store.js';
import { query, type PgPools } from './client.js';

/** The row of `wallet_elicitation_keys` that holds the key of the confirmations' `requestState`. */
const CONFIRMATION_KEY = 'confirmation';
const KEY_BYTES = 32;

/**
 * The elicitation state every replica shares (docs/REPLICAS.md): one random key, made by the first
 * replica that needs it (`INSERT … ON CONFLICT DO NOTHING`: two replicas at once keep one), read by
 * every other; and the questions answered yes, one row each (`INSERT … ON CONFLICT DO NOTHING`:
 * the second replica a yes is replayed to finds it spent). Expired rows are pruned as yeses are
 * spent. The key is never shown, logged nor audited.
 */
export function pgQuestions(pools: PgPools): SharedQuestions {
  return {
    key: async () => {
      // Twice at most: a replica whose insert lost to another's still uncommitted one reads nothing
      // in that statement's snapshot, and the next statement sees the winner's row.
      for (let attempt = 0; attempt < 3; attempt++) {
        const rows = await query(
          pools,
          `WITH made AS (
             INSERT INTO wallet_elicitation_keys (name, key) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING key
           )
           SELECT key FROM made UNION ALL SELECT key FROM wallet_elicitation_keys WHERE name = $1`,
          [CONFIRMATION_KEY, nodeCrypto().randomBytes(KEY_BYTES)],
        );
        const key = rows[0]?.['key'];
        if (key instanceof Uint8Array && key.length === KEY_BYTES) return key;
        if (key !== undefined) break;
      }
      throw new WalletError('BACKEND_INVALID', `The elicitation key in ${pools.shown} is damaged.`, {
        hint: 'Delete the row of wallet_elicitation_keys: the next question makes a new one (questions asked before it are asked again).',
      });
    },
    spend: async (id, ttlSeconds) => {
      const rows = await query(
        pools,
        `WITH pruned AS (DELETE FROM wallet_elicitation_spent WHERE expires_at < now()),
         spent AS (
           INSERT INTO wallet_elicitation_spent (id, expires_at) VALUES ($1, now() + make_interval(secs => $2))
           ON CONFLICT (id) DO NOTHING RETURNING id
         )
         SELECT count(*)::int AS n FROM spent`,
        [id, ttlSeconds],
      );
      return Number(rows[0]?.['n']) === 1;
    },
    spent: async (id) =>
      (await query(pools, 'SELECT 1 FROM wallet_elicitation_spent WHERE id = $1 AND expires_at >= now()', [id]))
        .length > 0,
  };
}

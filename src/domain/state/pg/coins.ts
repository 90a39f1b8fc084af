import { randomUUID } from 'node:crypto';
import type { CoinHold, CoinReservations } from '../store.js';
import { inTransaction, query, type PgPools } from './client.js';

/** How long coins stay held by a payment that neither broadcast nor gave them back (its replica died). */
const HELD_SECONDS = 600;
/** How long coins stay held after their broadcast: until the node, whatever backend, shows them spent. */
const SPENT_SECONDS = 3600;
/**
 * How long coins stay held for a transaction core_tx_create made, unsent: long enough to sign it
 * elsewhere (a hardware wallet, a person) and send it, short enough that an abandoned one does
 * not keep the wallet's coins from its other payments for long.
 */
const CREATED_SECONDS = 1800;

/** The reservation of the coins kept for the created transaction `unsignedTxid`. */
const createdFor = (unsignedTxid: string): string => `created:${unsignedTxid}`;

/** Thrown inside the transaction to roll it back: another payment holds these. */
class Taken extends Error {
  constructor(readonly outpoints: string[]) {
    super('coins taken');
  }
}

/**
 * Dash coin reservations in `wallet_coin_reservations`, one row per outpoint and network: a hold
 * inserts its rows in one transaction, all or none (the primary key decides between two replicas
 * choosing the same coin at once); a row past its expiry is free again.
 */
export function pgCoinReservations(pools: PgPools): CoinReservations {
  return {
    taken: async (network) => {
      const rows = await query(
        pools,
        'SELECT outpoint FROM wallet_coin_reservations WHERE network = $1 AND expires_at > now()',
        [network],
      );
      return new Set(rows.map((row) => String(row['outpoint'])));
    },
    hold: async (network, outpoints) => {
      const reservation = randomUUID();
      try {
        await inTransaction(pools, async (client) => {
          await client.query(
            'DELETE FROM wallet_coin_reservations WHERE network = $1 AND outpoint = ANY($2) AND expires_at <= now()',
            [network, outpoints],
          );
          const held = await client.query<{ outpoint: string }>(
            `INSERT INTO wallet_coin_reservations (network, outpoint, reservation, expires_at)
             SELECT $1, outpoint, $3, now() + make_interval(secs => $4) FROM unnest($2::text[]) AS outpoint
             ON CONFLICT DO NOTHING RETURNING outpoint`,
            [network, outpoints, reservation, HELD_SECONDS],
          );
          const mine = new Set(held.rows.map((row) => row.outpoint));
          const taken = outpoints.filter((outpoint) => !mine.has(outpoint));
          if (taken.length > 0) throw new Taken(taken);
        });
      } catch (error) {
        if (error instanceof Taken) return { taken: error.outpoints };
        throw error;
      }
      return holdOf(pools, reservation);
    },
    spend: async (network, outpoints, tx) => {
      const reservation = randomUUID();
      const created = createdFor(tx.unsignedTxid);
      try {
        await inTransaction(pools, async (client) => {
          await client.query(
            'DELETE FROM wallet_coin_reservations WHERE network = $1 AND outpoint = ANY($2) AND expires_at <= now()',
            [network, outpoints],
          );
          await client.query(
            `INSERT INTO wallet_coin_reservations (network, outpoint, reservation, expires_at)
             SELECT $1, outpoint, $3, now() + make_interval(secs => $4) FROM unnest($2::text[]) AS outpoint
             ON CONFLICT DO NOTHING`,
            [network, outpoints, reservation, HELD_SECONDS],
          );
          // The rows not this call's are the transaction's own (kept for it, or committed to it) or another's.
          const others = await client.query<{ outpoint: string }>(
            `SELECT outpoint FROM wallet_coin_reservations
             WHERE network = $1 AND outpoint = ANY($2) AND reservation <> $3 AND reservation <> $4
               AND txid IS DISTINCT FROM $5`,
            [network, outpoints, reservation, created, tx.txid],
          );
          if (others.rows.length > 0) throw new Taken(others.rows.map((row) => row.outpoint));
        });
      } catch (error) {
        if (error instanceof Taken) return { taken: error.outpoints };
        throw error;
      }
      return {
        ...holdOf(pools, reservation),
        // Broadcast: every coin it spends is held, committed to it, whoever held it for it before.
        commit: async (txid) => {
          await query(
            pools,
            `UPDATE wallet_coin_reservations
             SET reservation = $3, txid = $5, expires_at = now() + make_interval(secs => $6)
             WHERE network = $1 AND outpoint = ANY($2) AND (reservation = $3 OR reservation = $4 OR txid = $5)`,
            [network, outpoints, reservation, created, txid, SPENT_SECONDS],
          );
        },
      };
    },
  };
}

function holdOf(pools: PgPools, reservation: string): CoinHold {
  return {
    commit: async (txid) => {
      await query(
        pools,
        `UPDATE wallet_coin_reservations SET txid = $2, expires_at = now() + make_interval(secs => $3)
         WHERE reservation = $1`,
        [reservation, txid, SPENT_SECONDS],
      );
    },
    release: async () => {
      await query(pools, 'DELETE FROM wallet_coin_reservations WHERE reservation = $1', [reservation]);
    },
    keep: async (unsignedTxid) => {
      await query(
        pools,
        `UPDATE wallet_coin_reservations SET reservation = $2, expires_at = now() + make_interval(secs => $3)
         WHERE reservation = $1`,
        [reservation, createdFor(unsignedTxid), CREATED_SECONDS],
      );
    },
  };
}

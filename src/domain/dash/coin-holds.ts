import type { CoreNetwork } from '../config/networks.js';
import { WalletError } from '../errors.js';
import type { CoinHold, CoinReservations } from '../state/store.js';
import type { Utxo } from './transaction.js';

/** How often a payment chooses again when other replicas took its coins meanwhile. */
const ATTEMPTS = 5;

/** Holds nothing: one machine's payments of a wallet take turns under its lock (files backend). */
const NO_HOLD: CoinHold = {
  commit: () => Promise.resolve(),
  release: () => Promise.resolve(),
  keep: () => Promise.resolve(),
};

/**
 * Chooses a payment's coins (`choose`, skipping the outpoints given) and holds them in the state
 * store, so that no two replicas spend one coin: the coins other payments hold are skipped, and
 * a coin taken by another between the choice and the hold makes the payment choose again. With
 * the files backend nothing is held.
 */
export async function chooseHeldCoins<P extends { plan: { inputs: readonly Utxo[] } }>(
  coins: CoinReservations | undefined,
  network: CoreNetwork,
  choose: (exclude: ReadonlySet<string>) => Promise<P>,
): Promise<{ prepared: P; hold: CoinHold }> {
  if (!coins) return { prepared: await choose(new Set()), hold: NO_HOLD };
  const skipped = new Set<string>();
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    for (const outpoint of await coins.taken(network)) skipped.add(outpoint);
    const prepared = await choose(skipped);
    const held = await coins.hold(
      network,
      prepared.plan.inputs.map((utxo) => `${utxo.txid}:${utxo.vout}`),
    );
    if (!('taken' in held)) return { prepared, hold: held };
    for (const outpoint of held.taken) skipped.add(outpoint);
  }
  throw new WalletError(
    'BUSY',
    `Other payments of this wallet kept taking the coins this one chose; nothing was signed or sent.`,
    {
      hint: 'Retry in a moment, when the payments under way have gone out.',
    },
  );
}

/**
 * Holds the coins of a signed transaction for its broadcast (core_tx_send): those held for it by
 * the core_tx_create that made it, and those free. Refused (BUSY, nothing broadcast) when another
 * payment holds one: it is going out in another transaction, or another created one keeps it.
 * With the files backend nothing is held.
 */
export async function holdSpentCoins(
  coins: CoinReservations | undefined,
  network: CoreNetwork,
  tx: { txid: string; unsignedTxid: string; inputs: ReadonlyArray<{ txid: string; vout: number }> },
): Promise<CoinHold> {
  if (!coins) return NO_HOLD;
  const outpoints = tx.inputs.map((input) => `${input.txid}:${input.vout}`);
  const held = await coins.spend(network, outpoints, tx);
  if (!('taken' in held)) return held;
  throw new WalletError(
    'BUSY',
    `Another payment of this wallet holds ${held.taken.join(', ')}, which this transaction spends; nothing was broadcast.`,
    {
      hint: 'A payment under way spends it, or a transaction core_tx_create made keeps it for 30 minutes: check core_utxos_list, and create the transaction again with core_tx_create (it skips held coins).',
    },
  );
}

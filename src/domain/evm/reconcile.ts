import type { Hash } from 'viem';
import type { WalletServices } from '../services.js';
import type { ChainVerdict, MarkedReservation, StateStore } from '../state/store.js';
import { checksumEvmAddress } from './address.js';
import { connectNode, evmNetwork } from './network.js';
import { sentRecordOf } from './send.js';

/** What a start's reconciliation did on one EVM network, for the replica to say on stderr. */
export type NetworkReconciled = { network: string; committed: number; released: number; failed?: string };

/**
 * Reconciles, at a replica's start (and a CLI call's first use of the store), the nonce reservations another replica left marked broadcast
 * but unrecorded (killed between its broadcast and its record) on every configured EVM network
 * with a chain id, against that network's node: mined → committed and recorded in the sent log
 * (evm_txs_list), its ledger entry kept; its nonce taken by another transaction, or unknown to the
 * node past the deadline → released, its ledger entry taken out, its nonce refilled. Each gets
 * an audit line (tool `state_reconcile`: `sent` when mined, `ok` when released). A network
 * whose node cannot be reached is left for the next start (and said so). One chain id is
 * reconciled once, through the first network that names it.
 */
export async function reconcileReservations(
  services: WalletServices,
  opened?: StateStore,
): Promise<NetworkReconciled[]> {
  const store = opened ?? (await services.stateStore());
  if (store.kind === 'files') return [];
  // The store's rows first: with nothing left, no node is asked (a CLI call pays one query).
  const left = new Set(await store.toReconcile());
  if (left.size === 0) return [];
  const seen = new Set<number>();
  const done: NetworkReconciled[] = [];
  for (const settings of (await services.networks()).networks) {
    if (settings.chain !== 'evm' || settings.chainId === null || seen.has(settings.chainId)) continue;
    if (!left.has(settings.chainId)) continue;
    seen.add(settings.chainId);
    const network = await evmNetwork(services, settings.network);
    try {
      // The node is reached only when a reservation needs it.
      let node: Awaited<ReturnType<typeof connectNode>> | undefined;
      const connected = async () => (node ??= await connectNode(network));
      const judge = async (reservation: MarkedReservation): Promise<ChainVerdict> => {
        const at = await connected();
        const hash = reservation.hash as Hash;
        if (await at.receipt(hash)) return 'mined';
        if (await at.transaction(hash)) return 'pending';
        const address = checksumEvmAddress(reservation.address);
        return (await at.nonce(address)) > reservation.nonce ? 'replaced' : 'absent';
      };
      const mined = async (reservation: MarkedReservation): Promise<void> => {
        const tx = await (await connected()).transaction(reservation.hash as Hash);
        if (!tx) return;
        await store.sentLog(network.chainId).append(
          sentRecordOf(
            {
              hash: tx.hash,
              from: checksumEvmAddress(tx.from),
              to: tx.to ? checksumEvmAddress(tx.to) : null,
              value: tx.value,
              nonce: tx.nonce,
              data: tx.input,
            },
            new Date(),
          ),
        );
      };
      const { committed, released } = await store.reconcile(network.chainId, judge, mined);
      // The calls that left them never wrote their audit lines (their replica died): these say what became of them.
      const audit = (reservation: MarkedReservation, outcome: 'sent' | 'ok') =>
        store.appendAudit({
          time: new Date().toISOString(),
          tool: 'state_reconcile',
          outcome,
          network: network.network,
          from: checksumEvmAddress(reservation.address),
          hash: reservation.hash,
        });
      for (const reservation of committed) await audit(reservation, 'sent');
      for (const reservation of released) await audit(reservation, 'ok');
      if (committed.length + released.length > 0) {
        done.push({ network: network.network, committed: committed.length, released: released.length });
      }
    } catch (error) {
      done.push({
        network: network.network,
        committed: 0,
        released: 0,
        failed: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return done;
}

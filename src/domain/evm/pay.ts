import { parseTransaction } from 'viem';
import type { ProgressReporter } from '../net/chain-backend.js';
import { broadcastReserved, checkBeforeSigning, definitelyRefused } from '../policy/spending-policy.js';
import { PLANNING, type Authority } from '../policy/authority.js';
import type { WalletServices } from '../services.js';
import type { EvmNode } from '../net/evm-rpc.js';
import { resolveAccount, type EvmAccount } from './accounts.js';
import { connectNode, evmNetwork, type EvmNetwork } from './network.js';
import { parseTxRequestFrom, plan, type EvmTxPlan, type ParsedTxRequest, type TxRequest } from './plan.js';
import { broadcast } from './send.js';
import { signReserved } from './sign.js';
import { checkSimulatedSpend, simulateCall, simulatedCallOf, type AssetChanges } from './simulate.js';
import { checkFeeCap, countedSpend, spendKey } from './spend.js';
import { statusOf, type TxStatus } from './status.js';
import { describeSigned, type SignedTx } from './transaction.js';

export type FundsRequest = TxRequest & PaymentTerms & { to: string };

/** How a payment goes out, once its sender, recipient and amount are known. */
export type PaymentTerms = {
  dryRun: boolean;
  wait: boolean;
  waitSeconds: number;
  maxFee: string | undefined;
  authority: Authority;
};

/** Who pays, resolved: the keystore account, its network, and the node when the caller has connected. */
export type Payer = { account: EvmAccount; network: EvmNetwork; node?: EvmNode | undefined };

/**
 * `simulation`: what the call would do to balances and allowances (see simulate.ts), asked of the
 * node for every dry run, and before signing where the network has a policy; else undefined.
 */
export type Payment = { plan: EvmTxPlan; sent: (SignedTx & TxStatus) | null; simulation?: AssetChanges | undefined };

/**
 * Pays `value` to `to` in one call: plan, sign and send, unlocking once. A dry run only plans
 * (nothing is signed or sent) so the caller can look at the fee first.
 */
export async function sendFunds(
  services: WalletServices,
  request: FundsRequest,
  options: { signal?: AbortSignal; progress?: ProgressReporter } = {},
): Promise<Payment> {
  const account = await resolveAccount(services, request.from);
  const parsed = await parseTxRequestFrom(services, account.address, request);
  const network = await evmNetwork(services, request.network);
  return pay(services, { account, network }, parsed, request, options);
}

/**
 * {@link sendFunds} for a caller that has resolved the account and the network (and may have
 * connected to its node): nothing is resolved again.
 */
export async function pay(
  services: WalletServices,
  { account, network, node: connected }: Payer,
  parsed: ParsedTxRequest,
  terms: PaymentTerms,
  options: { signal?: AbortSignal; progress?: ProgressReporter } = {},
): Promise<Payment> {
  const { policy } = network;
  // A dry run signs nothing: only the owner's rules apply to it, so it shows the plan an
  // approval would be asked for.
  const spend = { ...countedSpend(parsed), authority: terms.dryRun ? PLANNING : terms.authority };
  await checkBeforeSigning(services.ledgers, policy, spend);
  const node = connected ?? (await connectNode(network, options.signal));
  // What the call would do, asked of the node once it is planned: the transaction as it will be
  // sent (gas, fees, nonce), so a contract sees no simulation's zero gas price. The policy counts
  // the tokens it shows moving beyond what the calldata says (a router pulling them), as it counts
  // decoded ones.
  const simulateWith = async (planned: EvmTxPlan): Promise<{ simulation?: AssetChanges; counted: typeof spend }> => {
    if (!terms.dryRun && policy === null) return { counted: spend };
    const call = simulatedCallOf(account.address, parseTransaction(planned.unsigned));
    const simulation = await simulateCall(node, call);
    const counted = await checkSimulatedSpend(
      services.ledgers,
      policy,
      spend,
      simulation,
      account.address,
      !terms.dryRun,
    );
    return { simulation, counted };
  };
  if (terms.dryRun) {
    const planned = await plan(node, parsed);
    checkFeeCap(planned.maxFee, terms.maxFee, policy);
    const { simulation } = await simulateWith(planned);
    return { plan: planned, sent: null, simulation };
  }
  // From the nonce to the broadcast, one payment per account at a time (across processes, and
  // across replicas sharing a state store): two payments planned at once would get the same nonce,
  // and one would replace the other. The store also reserves the nonce before it is signed with.
  const store = await services.stateStore();
  const { planned, summary, simulation } = await store.withAccount(network.chainId, account.address, async (slot) => {
    const nonce = slot && parsed.nonce === undefined ? await slot.next(await node.nonce(account.address)) : undefined;
    const planned = await plan(node, nonce === undefined ? parsed : { ...parsed, nonce });
    checkFeeCap(planned.maxFee, terms.maxFee, policy);
    const { simulation, counted } = await simulateWith(planned);
    const transaction = parseTransaction(planned.unsigned);
    const key = spendKey(account.address, transaction);
    await slot?.reserve(planned.nonce, key);
    let broadcasting = false;
    try {
      const reservation = await signReserved(services, account, transaction, policy, {
        ...counted,
        key,
        fee: planned.maxFee,
      });
      // Described from the transaction it signed: the signed hex is never decoded again.
      const summary = describeSigned(reservation.value, account.address, transaction);
      // Marked broadcast in the store, which refuses (BUSY, nothing sent) if the account's lock was lost.
      await slot?.broadcasting(planned.nonce, summary.hash);
      broadcasting = true;
      await broadcastReserved(reservation, () => broadcast(services, node, summary));
      return { planned, summary, simulation };
    } catch (error) {
      // Nothing went out with the nonce (refused before the broadcast, or by the node): it is free again.
      if (slot && (!broadcasting || definitelyRefused(error))) await slot.release(planned.nonce).catch(() => undefined);
      throw error;
    }
  });
  const status = await statusOf(node, summary.hash, terms.wait ? terms.waitSeconds : 0, options);
  return { plan: planned, sent: { ...summary, ...status }, simulation };
}

import { parseTransaction } from 'viem';
import type { ProgressReporter } from '../net/chain-backend.js';
import { broadcastReserved, checkBeforeSigning } from '../policy/spending-policy.js';
import type { Authority } from '../policy/authority.js';
import type { WalletServices } from '../services.js';
import { resolveAccount } from './accounts.js';
import { connectEvm, evmNetwork } from './network.js';
import { parseTxRequest, plan, type EvmTxPlan, type TxRequest } from './plan.js';
import { broadcast } from './send.js';
import { signReserved } from './sign.js';
import { checkFeeCap, countedSpend, spendKey } from './spend.js';
import { statusOf, type TxStatus } from './status.js';
import { describeSigned, type SignedTx } from './transaction.js';

export type FundsRequest = TxRequest & {
  to: string;
  dryRun: boolean;
  wait: boolean;
  waitSeconds: number;
  maxFee: string | undefined;
  authority: Authority;
};

/**
 * Pays `value` to `to` in one call: plan, sign and send, unlocking once. A dry run only plans
 * (nothing is signed or sent) so the caller can look at the fee first.
 */
export async function sendFunds(
  services: WalletServices,
  request: FundsRequest,
  options: { signal?: AbortSignal; progress?: ProgressReporter } = {},
): Promise<{ plan: EvmTxPlan; sent: (SignedTx & TxStatus) | null }> {
  const account = await resolveAccount(services, request.from);
  const parsed = await parseTxRequest(services, { ...request, from: account.address });
  const { policy } = await evmNetwork(services, request.network);
  // A dry run signs nothing: only the owner's rules apply to it, so it shows the plan an
  // approval would be asked for.
  const spend = { ...countedSpend(parsed), authority: request.dryRun ? ('owner' as const) : request.authority };
  await checkBeforeSigning(services.dataDir, policy, spend);
  const node = await connectEvm(services, request.network, options.signal);
  if (request.dryRun) {
    const planned = await plan(node, parsed);
    checkFeeCap(planned.maxFee, request.maxFee, policy);
    return { plan: planned, sent: null };
  }
  // From the nonce to the broadcast, one payment per account at a time (across processes too):
  // two payments planned at once would get the same nonce, and one would replace the other.
  const { planned, signed } = await services.keystore.withAccountLock(account.address, async () => {
    const planned = await plan(node, parsed);
    checkFeeCap(planned.maxFee, request.maxFee, policy);
    const transaction = parseTransaction(planned.unsigned);
    const reservation = await signReserved(services, account, transaction, policy, {
      ...spend,
      key: spendKey(account.address, transaction),
      fee: planned.maxFee,
    });
    const signed = reservation.value;
    await broadcastReserved(reservation, () => broadcast(services, node, describeSigned(signed, account.address)));
    return { planned, signed };
  });
  const summary = describeSigned(signed, account.address);
  const status = await statusOf(node, summary.hash, request.wait ? request.waitSeconds : 0, options);
  return { plan: planned, sent: { ...summary, ...status } };
}

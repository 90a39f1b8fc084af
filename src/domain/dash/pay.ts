import { PLANNING, type Authority } from '../policy/authority.js';
import { broadcastReserved, definitelyRefused, reserveSpend } from '../policy/spending-policy.js';
import type { WalletServices } from '../services.js';
import type { CoinHold } from '../state/store.js';
import { chooseHeldCoins } from './coin-holds.js';
import { wipe } from './keys.js';
import { policyOf } from './network.js';
import { finalizeSpend, prepareSpend, preview, type CreatedTransaction, type SpendRequest } from './plan.js';
import { signWith } from './sign.js';
import { checkFee, checkPolicy } from './spend.js';
import { readPsbt, unsignedTxid } from './transaction.js';
import { openWallet, unlockMaster } from '../wallet/wallets.js';

export type FundsSent = CreatedTransaction & { hex: string | null; txid: string | null; sent: boolean };

/**
 * Create, sign and send in one step. The fee is checked and the wallet unlocked before the change
 * index is reserved. `dryRun` only plans: it returns the fee, size, inputs and outputs, and neither
 * signs nor reserves anything (a signed transaction is never handed out unsent with an unrecorded
 * change address).
 */
export async function sendFunds(
  services: WalletServices,
  request: SpendRequest & { maxFee?: bigint | undefined; dryRun: boolean; authority: Authority },
): Promise<FundsSent> {
  if (request.dryRun) return spendFunds(services, request);
  // Coins are chosen from what the node shows unspent: the wallet's payments take turns from
  // choosing them to broadcasting, so a second one sees the first one's coins as spent.
  const entry = await openWallet(services, request.walletId, request.network);
  return services.keystore.withWalletLock(entry, () => spendFunds(services, request));
}

async function spendFunds(
  services: WalletServices,
  request: SpendRequest & { maxFee?: bigint | undefined; dryRun: boolean; authority: Authority },
): Promise<FundsSent> {
  // Across replicas the coins chosen are held in the state store until the broadcast (a dry run holds none).
  const coins = request.dryRun ? undefined : (await services.stateStore()).coins;
  const { prepared, hold } = await chooseHeldCoins(coins, request.network, (exclude) =>
    prepareSpend(services, request, exclude),
  );
  // Committed once broadcast (or once a broadcast got no answer: it may have gone out).
  let committed = false;
  const held: CoinHold = {
    commit: async (txid) => {
      committed = true;
      await hold.commit(txid);
    },
    release: () => hold.release(),
    keep: (unsignedTxid) => hold.keep(unsignedTxid),
  };
  try {
    return await spendPrepared(services, request, prepared, held);
  } finally {
    // Not broadcast (refused, failed, a dry run): the coins are free again.
    if (!committed) await hold.release().catch(() => undefined);
  }
}

async function spendPrepared(
  services: WalletServices,
  request: SpendRequest & { maxFee?: bigint | undefined; dryRun: boolean; authority: Authority },
  prepared: Awaited<ReturnType<typeof prepareSpend>>,
  hold: CoinHold,
): Promise<FundsSent> {
  const policy = await policyOf(services, request.network);
  // A dry run signs nothing: only the owner's rules apply, so it shows what an approval would ask for.
  const authority = request.dryRun ? PLANNING : request.authority;
  const spend = await checkPolicy(services, policy, request.network, prepared.plan.outputs, authority);
  checkFee(prepared.plan.fee, request.maxFee, 'would be', policy);
  if (request.dryRun) return { ...preview(prepared), hex: null, txid: null, sent: false };
  const master = await unlockMaster(services, prepared.entry);
  try {
    // The change index is reserved and the payment signed only once the 24-hour cap has room.
    const reservation = await reserveSpend(services.ledgers, policy, { ...spend, fee: prepared.plan.fee }, async () => {
      const created = await finalizeSpend(services, prepared);
      const psbt = readPsbt(created.psbt);
      const key = unsignedTxid(psbt);
      const signed = signWith(master, created.entry, psbt);
      return { value: { created, signed }, key, txid: signed.txid };
    });
    const { created, signed } = reservation.value;
    // The fee was checked above on the backend's own amounts: broadcast through the same backend.
    const txid = await broadcastReserved(reservation, async () => {
      try {
        return await prepared.backend.broadcast(signed.hex, request.signal);
      } catch (error) {
        // No answer: it may have gone out, so its coins stay held (until the hold expires).
        if (!definitelyRefused(error)) await hold.commit(signed.txid).catch(() => undefined);
        throw error;
      }
    });
    await hold.commit(txid).catch(() => undefined);
    return { ...created, hex: signed.hex, txid, sent: true };
  } finally {
    wipe(master);
  }
}

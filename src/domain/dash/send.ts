import type { CoreNetwork } from '../config/networks.js';
import { WalletError } from '../errors.js';
import { checkBackendNetwork } from '../net/backends.js';
import {
  broadcastReserved,
  checkAutonomy,
  checkSpend,
  definitelyRefused,
  reserveSpend,
} from '../policy/spending-policy.js';
import type { Authority } from '../policy/authority.js';
import type { WalletServices } from '../services.js';
import { holdSpentCoins } from './coin-holds.js';
import { backendFor, policyOf } from './network.js';
import { checkFee, countedSpend, keystoreAddresses } from './spend.js';
import { addressedOutputs, readRawTransaction } from './transaction.js';

export type SentResult = {
  txid: string;
  fee: bigint;
  size: number;
  /** What it pays to addresses outside the keystore's wallets of that network, and those addresses. */
  paid: bigint;
  recipients: string[];
};

/**
 * Broadcasts a signed transaction after checking, against the backend's own view of the coins it
 * spends, that its fee is at most `maxFee`, and that the network's spending policy allows it.
 */
export async function sendTransaction(
  services: WalletServices,
  request: {
    network: CoreNetwork;
    hex: string;
    maxFee?: bigint | undefined;
    signal?: AbortSignal | undefined;
    authority: Authority;
  },
): Promise<SentResult> {
  const tx = readRawTransaction(request.hex);
  const backend = await backendFor(services, request.network);
  await checkBackendNetwork(backend, request.network);
  let inputs = 0n;
  for (const [i, input] of tx.inputs.entries()) {
    const prevout = await backend.prevout(input.txid, input.vout, request.signal);
    if (!prevout) {
      throw new WalletError(
        'INVALID_PARAM',
        `Input ${i} spends ${input.txid}:${input.vout}, which the backend does not know as unspent.`,
        {
          hint: 'It is already spent, not yet seen by this node, or on another network.',
        },
      );
    }
    inputs += prevout.amount;
  }
  const outputs = tx.outputs.reduce((sum, output) => sum + output.amount, 0n);
  const fee = inputs - outputs;
  if (fee < 0n) throw new WalletError('INVALID_PARAM', 'The transaction spends more than its inputs hold.');
  const policy = await policyOf(services, request.network);
  const addressed = addressedOutputs(tx, request.network);
  const own = await keystoreAddresses(
    services,
    request.network,
    addressed.map((output) => output.address),
  );
  const spend = { ...countedSpend(addressed, own), key: tx.unsignedTxid, authority: request.authority, fee };
  checkSpend(policy, spend);
  checkAutonomy(policy, spend, request.authority);
  checkFee(fee, request.maxFee, 'is', policy);
  // Across replicas its coins are held from here to the broadcast (taking over the hold of the
  // core_tx_create that made it), then committed to it, as core_funds_send's are.
  const hold = await holdSpentCoins((await services.stateStore()).coins, request.network, tx);
  let txid: string;
  let broadcasting = false;
  try {
    const reservation = await reserveSpend(services.ledgers, policy, spend, async () => ({
      value: undefined,
      txid: tx.txid,
    }));
    txid = await broadcastReserved(reservation, () => {
      broadcasting = true;
      return backend.broadcast(request.hex.trim().toLowerCase(), request.signal);
    });
  } catch (error) {
    // Refused: nothing went out (a kept hold stays, for another try); no answer: it may have gone out.
    if (!broadcasting || definitelyRefused(error)) await hold.release().catch(() => undefined);
    else await hold.commit(tx.txid).catch(() => undefined);
    throw error;
  }
  await hold.commit(txid).catch(() => undefined);
  const recipients = [...new Set(spend.recipients.flatMap((recipient) => recipient.address ?? []))];
  return { txid, fee, size: tx.size, paid: spend.amount, recipients };
}

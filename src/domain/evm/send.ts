import { keccak256, recoverTransactionAddress, type Hash, type Hex, type TransactionSerialized } from 'viem';
import { WalletError } from '../errors.js';
import type { ProgressReporter } from '../net/chain-backend.js';
import type { EvmNode } from '../net/evm-rpc.js';
import {
  broadcastReserved,
  checkAutonomy,
  checkBeforeSigning,
  checkSpend,
  definitelyRefused,
  reserveSpend,
} from '../policy/spending-policy.js';
import { PLANNING, type Authority } from '../policy/authority.js';
import type { WalletServices } from '../services.js';
import { checkChainId, connectNode, evmNetwork, type EvmNetwork } from './network.js';
import type { SentRecord } from './sent-log.js';
import { planned, type TxPlanned } from './sign.js';
import { countedWhenSigning, simulateCall, simulatedCallOf } from './simulate.js';
import { checkFeeCap, countedSpend, spendKey } from './spend.js';
import { statusOf, type TxStatus } from './status.js';
import { tokenMovesOfCalldata } from './token-moves.js';
import { describeSigned, maxFeeOf, readTransaction, type SignedTx } from './transaction.js';

export type SendRequest = {
  signed: string;
  network: string;
  wait: boolean;
  waitSeconds: number;
  maxFee: string | undefined;
  authority: Authority;
};

/**
 * Broadcasts a signed transaction after checking its chain id against the network and the node,
 * and its fee cap. Sending the same transaction again is harmless: a transaction the node already
 * knows is not broadcast twice. With `wait`, polls for the receipt, reporting progress.
 */
export async function sendTransaction(
  services: WalletServices,
  request: SendRequest,
  options: { signal?: AbortSignal; progress?: ProgressReporter } = {},
): Promise<SignedTx & TxStatus> {
  const network = await evmNetwork(services, request.network);
  const { transaction, signed, from } = await readSigned(request.signed, network);
  const summary = describeSigned(signed, from, transaction);
  const spend = {
    ...countedSpend(transaction),
    key: spendKey(from, transaction),
    authority: request.authority,
    fee: summary.maxFee,
  };
  checkSpend(network.policy, spend);
  checkAutonomy(network.policy, spend, request.authority);
  checkFeeCap(summary.maxFee, request.maxFee, network.policy);
  const node = await connectNode(network, options.signal);
  // Where a policy is set, what the node shows the transaction would do counts too (simulate.ts).
  const counted = await countedWhenSigning(
    services.ledgers,
    network.policy,
    spend,
    () => simulateCall(node, simulatedCallOf(from, transaction)),
    from,
  );
  // One payment of the account at a time, as evm_funds_send's (pay.ts): across replicas sharing a
  // state store, its nonce reserved before the broadcast, and refused when another transaction
  // went out with it.
  const store = await services.stateStore();
  await store.withAccount(network.chainId, from, async (slot) => {
    const taken = await slot?.broadcastWith(summary.nonce);
    if (taken !== undefined && taken.hash !== summary.hash) throw nonceTaken(summary, taken.hash);
    // The same transaction sent again holds its reservation already (and is not broadcast twice).
    // The reservation names no spend: a signed transaction is counted from its signature (it may go
    // out through any node), so one abandoned or released here takes no count out of the ledgers.
    const reserving = taken === undefined ? slot : undefined;
    await reserving?.reserve(summary.nonce, null);
    let broadcasting = false;
    try {
      const reservation = await reserveSpend(services.ledgers, network.policy, counted, async () => ({
        value: undefined,
        txid: summary.hash,
      }));
      // Marked broadcast in the store, which refuses (BUSY, nothing sent) if the account's lock was lost.
      await reserving?.broadcasting(summary.nonce, summary.hash);
      broadcasting = true;
      await broadcastReserved(reservation, () => broadcast(services, node, summary));
    } catch (error) {
      // Nothing went out with the nonce (refused before the broadcast, or by the node): it is free again.
      if (!broadcasting || definitelyRefused(error)) await reserving?.release(summary.nonce).catch(() => undefined);
      throw error;
    }
  });
  const status = await statusOf(node, summary.hash, request.wait ? request.waitSeconds : 0, options);
  return { ...summary, ...status };
}

/** signed_tx read and checked: signed, for `network`'s chain; with its signer, recovered from the signature. */
async function readSigned(text: string, network: EvmNetwork) {
  const transaction = readTransaction(text, 'signed_tx');
  if (transaction.r === undefined) {
    throw new WalletError('INVALID_PARAM', 'signed_tx has no signature.', { hint: 'Sign it first with evm_tx_sign.' });
  }
  checkChainId(transaction.chainId, network, 'The transaction');
  const signed = text.trim() as Hex;
  const from = await recoverTransactionAddress({ serializedTransaction: signed as TransactionSerialized });
  return { transaction, signed, from };
}

/** The refusal of a transaction whose nonce another transaction of the account went out with. */
function nonceTaken(tx: SignedTx, other: string | null): WalletError {
  return new WalletError(
    'INVALID_PARAM',
    `Nonce ${tx.nonce} of ${tx.from} went out with another transaction${other ? ` (${other})` : ''} less than two minutes ago; ${tx.hash} was not broadcast.`,
    {
      hint: 'Create the transaction again (evm_tx_create takes the next nonce), sign and send it; a deliberate replacement of that nonce can be sent two minutes after it.',
    },
  );
}

/**
 * The dry run of {@link sendTransaction}: every check it makes, under the owner's rules, and what
 * the transaction would do, simulated on the network's node; nothing is broadcast.
 */
export async function planSending(
  services: WalletServices,
  request: { signed: string; network: string; maxFee: string | undefined },
  signal?: AbortSignal,
): Promise<TxPlanned> {
  const network = await evmNetwork(services, request.network);
  const { transaction, signed, from } = await readSigned(request.signed, network);
  const spend = {
    ...countedSpend(transaction),
    key: spendKey(from, transaction),
    authority: PLANNING,
    fee: maxFeeOf(transaction),
  };
  await checkBeforeSigning(services.ledgers, network.policy, spend);
  checkFeeCap(spend.fee, request.maxFee, network.policy);
  return { ...(await planned(services, network, from, transaction, spend, signal)), hash: keccak256(signed) };
}

/**
 * Broadcasts unless the node already has the transaction, then records it in the chain's
 * sent log in the state store (evm_txs_list, sent-log.ts). When the broadcast itself fails to get an answer, the
 * transaction may still have gone out: the node is asked again, and if it still cannot tell, the
 * error names the hash so nobody pays twice by retrying blindly.
 */
export async function broadcast(services: WalletServices, node: EvmNode, tx: SignedTx): Promise<void> {
  const { signed, hash } = tx;
  if (!(await node.transaction(hash))) await send(node, signed, hash);
  await recordSent(services, tx);
}

/**
 * Appends a broadcast transaction to the record. The payment has gone out by now: a record that
 * cannot be written (a full disk, a damaged file) costs a line of history, never a failed call
 * that would invite paying twice.
 */
async function recordSent(services: WalletServices, tx: SignedTx): Promise<void> {
  const store = await services.stateStore().catch(() => undefined);
  await store
    ?.sentLog(tx.chainId)
    .append(sentRecordOf(tx, new Date()))
    .catch(() => undefined);
}

/** The sent log's record of a transaction broadcast at `sentAt`: public facts only. */
export function sentRecordOf(
  tx: Pick<SignedTx, 'hash' | 'from' | 'to' | 'value' | 'nonce' | 'data'>,
  sentAt: Date,
): SentRecord {
  const [move] = tx.to === null ? [] : tokenMovesOfCalldata(tx.to, tx.data).moves;
  return {
    hash: tx.hash,
    from: tx.from,
    to: tx.to,
    value: tx.value.toString(),
    nonce: tx.nonce,
    sent_at: sentAt.toISOString(),
    token:
      move?.kind === 'transfer' ? { address: move.token, to: move.counterparty, amount: move.amount.toString() } : null,
  };
}

async function send(node: EvmNode, signed: Hex, hash: Hash): Promise<void> {
  try {
    await node.send(signed);
  } catch (error) {
    if (!(error instanceof WalletError) || error.code !== 'BACKEND_UNAVAILABLE') throw error;
    if (await node.transaction(hash).catch(() => undefined)) return;
    throw new WalletError(
      'BACKEND_UNAVAILABLE',
      `The broadcast of ${hash} got no answer from ${node.endpoint}: it may have been sent.`,
      {
        hint: `Check with evm_tx_get \`hash: ${hash}\` before paying again; evm_tx_send with the same signed_tx is safe to repeat.`,
        cause: error,
      },
    );
  }
}

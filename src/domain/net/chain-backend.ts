import type { CoreNetwork } from '../config/networks.js';
import type { Utxo } from '../dash/transaction.js';

/** An address the wallet watches, with the output script that pays to it. */
export type WatchedAddress = { address: string; script: Uint8Array };

export type AddressBalance = { confirmed: bigint; unconfirmed: bigint };

/** One transaction of a wallet's history, as the backend sees it from the wallet's addresses. */
export type HistoryTx = {
  txid: string;
  /** Its block height; null while in the mempool. */
  height: number | null;
  /** Its block's time (or when the mempool saw it), Unix seconds; null when the backend does not say. */
  time: number | null;
  /** What it did to the wallet: received minus spent, in duffs (negative when it paid out). */
  net: bigint;
  /** Whether it spent coins of the wallet (the wallet sent it). */
  spent: boolean;
  /** Its fee in duffs, when the backend tells it and the wallet paid it; else null. */
  fee: bigint | null;
};

/** A page of a wallet's history, newest first, and how many transactions there are in all. */
export type HistoryPage = { total: number; txs: HistoryTx[] };

/** Called as a long operation advances (address discovery, a scan): done of total, and what. */
export type ProgressReporter = (done: number, total: number | undefined, message: string) => void;

/**
 * What the wallet needs from a Dash chain, whatever serves it: a Dash Core node's JSON-RPC or an
 * Insight explorer. Amounts are duffs; every failure to reach the backend is `BACKEND_UNAVAILABLE`.
 */
export interface CoreChainBackend {
  readonly kind: 'core-rpc' | 'insight';
  /** The endpoint with credentials masked, for messages. */
  readonly endpoint: string;
  /** The network the backend serves and its tip height. */
  chainInfo(): Promise<{ network: CoreNetwork | 'other'; height: number }>;
  /** Unspent outputs paying to the addresses (confirmed, and unconfirmed where the backend sees them). */
  utxos(addresses: readonly WatchedAddress[], signal?: AbortSignal): Promise<Utxo[]>;
  /**
   * The unspent outputs for coin selection, cheaply: those whose state the backend has not yet
   * confirmed (unspent in the mempool, coinbase or not) are in `unchecked`; the spender checks only
   * the ones it chooses ({@link CoreChainBackend.checkUtxos}), so the calls grow with the inputs of
   * a payment, not with the coins held.
   */
  spendCandidates(
    addresses: readonly WatchedAddress[],
    signal?: AbortSignal,
  ): Promise<{ utxos: Utxo[]; unchecked: ReadonlySet<Utxo> }>;
  /** The given outputs still unspent (mempool included), each marked coinbase or not. */
  checkUtxos(utxos: readonly Utxo[], signal?: AbortSignal): Promise<Utxo[]>;
  /** The balance of each address. */
  balances(addresses: readonly WatchedAddress[], signal?: AbortSignal): Promise<Map<string, AddressBalance>>;
  /** The addresses that have ever received funds, as far as this backend can tell. */
  used(addresses: readonly WatchedAddress[], signal?: AbortSignal): Promise<Set<string>>;
  /** The backend's fee estimate in duffs per 1000 bytes, if it has one. */
  feeRate(signal?: AbortSignal): Promise<bigint | undefined>;
  /** An unspent output, or undefined when it is spent or unknown. */
  prevout(txid: string, vout: number, signal?: AbortSignal): Promise<{ amount: bigint } | undefined>;
  /** Broadcasts a signed transaction; resolves to its txid. */
  broadcast(hex: string, signal?: AbortSignal): Promise<string>;
  /**
   * The transactions touching the addresses, newest first (the mempool's before the blocks'),
   * `limit` of them from `offset`. A backend that keeps no history per address refuses
   * (`BACKEND_INVALID`, naming what it lacks).
   */
  history(
    addresses: readonly WatchedAddress[],
    page: { offset: number; limit: number },
    signal?: AbortSignal,
  ): Promise<HistoryPage>;
  /** What "used" can see: full history, or only current unspent outputs. */
  readonly historyKind: () => Promise<'history' | 'unspent-only'>;
}

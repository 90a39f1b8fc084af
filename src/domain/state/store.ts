import type { Chain } from '../config/networks.js';
import type { SentRecord } from '../evm/sent-log.js';
import type { WalletKeystore } from '../keystore/keystore.js';
import type { ApprovalRecords } from '../policy/approval-record.js';
import type { PasskeyRecords } from '../policy/passkey-record.js';
import type { TaskRecords } from '../policy/task-record.js';
import type { AuditRecord } from '../policy/audit-log.js';
import type { LedgerEntry } from '../policy/spend-ledger.js';

/**
 * One rolling 24-hour count (a chain's or a token's), wherever it lives: a file of the data
 * directory (`SpendLedger`) or rows of the state store (`PgSpendLedger`). `update` runs its change
 * holding the ledger alone (a file lock, a row lock) and keeps what it returns.
 */
export type CapLedger = {
  /** Where it is, for messages: a file path, or the store's table and ledger name. */
  readonly path: string;
  recent(now?: number): Promise<LedgerEntry[]>;
  update<T>(change: (recent: LedgerEntry[], now: number) => Promise<{ entries: LedgerEntry[]; result: T }>): Promise<T>;
  remove(key: string): Promise<void>;
};

/** What the wallet broadcast on one EVM chain (evm_txs_list): a file of the data directory, or rows of the store. */
export type SentRecords = {
  /** Where it is, for messages. */
  readonly path: string;
  /** The newest records (at most SENT_LOG_MAX), oldest first. */
  records(): Promise<SentRecord[]>;
  /** Appends `record` (once per hash: a repeated broadcast is not a second transaction). */
  append(record: SentRecord): Promise<void>;
};

/** What a payment of one EVM account holds while it plans, signs and broadcasts. */
export type NonceSlot = {
  /** The nonce to use, given the node's pending count: the first not reserved by another replica. */
  next(pending: number): Promise<number>;
  /**
   * The hash a payment (of any replica) broadcast with `nonce` in the last two minutes, the window
   * `next` skips; undefined when none did. A transaction whose nonce its caller fixed (evm_tx_send)
   * is refused when another transaction holds it so.
   */
  broadcastWith(nonce: number): Promise<{ hash: string | null } | undefined>;
  /**
   * Records `nonce` as taken (before anything is signed with it), with the spend key its
   * transaction is counted under in the ledgers: a reservation abandoned before its broadcast
   * takes that count out again. Null for a transaction signed before (evm_tx_send): its count
   * stands from its signature, whatever becomes of this broadcast.
   */
  reserve(nonce: number, spendKey: string | null): Promise<void>;
  /**
   * Records that `nonce` goes out now as `hash`, just before the broadcast; throws BUSY (nothing
   * must be broadcast) when the account's lock was lost meanwhile (the store's connection died).
   */
  broadcasting(nonce: number, hash: string): Promise<void>;
  /** Gives `nonce` back: nothing was broadcast with it. */
  release(nonce: number): Promise<void>;
};

/** What the chain says of a reservation marked broadcast, at a replica's start. */
export type ChainVerdict = 'mined' | 'pending' | 'replaced' | 'absent';

/** A nonce reservation marked broadcast: its account (lower case), nonce and transaction hash. */
export type MarkedReservation = { address: string; nonce: number; hash: string };

/** What a start's reconciliation did: reservations committed (mined) and released (never mined). */
export type Reconciled = { committed: MarkedReservation[]; released: MarkedReservation[] };

/** Dash coins held by one payment from coin selection to broadcast (see {@link CoinReservations}). */
export type CoinHold = {
  /** The payment was broadcast as `txid`: its coins stay held until the node shows them spent. */
  commit(txid: string): Promise<void>;
  /** Nothing was broadcast: the coins are free again. */
  release(): Promise<void>;
  /**
   * Nothing is broadcast by this call, but the transaction it created (core_tx_create), whose
   * unsigned txid is `unsignedTxid`, may be signed and sent later (core_tx_send): its coins stay
   * held for a bounded time (30 minutes), for that transaction only.
   */
  keep(unsignedTxid: string): Promise<void>;
};

/**
 * Dash coins reserved by payments of any replica, by outpoint (`txid:vout`): a replica's coin
 * selection skips those `taken` by others, and `hold` takes the chosen ones all or none.
 */
export type CoinReservations = {
  taken(network: string): Promise<ReadonlySet<string>>;
  /** Holds `outpoints`; when another payment holds some, holds none and names those. */
  hold(network: string, outpoints: readonly string[]): Promise<CoinHold | { taken: string[] }>;
  /**
   * Holds the coins a signed transaction (core_tx_send) spends, for its broadcast: those free, and
   * those held for it (kept by the core_tx_create that made it: `unsignedTxid`; or committed to it
   * as `txid`, sent before). When another payment holds some, holds none and names those.
   */
  spend(
    network: string,
    outpoints: readonly string[],
    tx: { txid: string; unsignedTxid: string },
  ): Promise<CoinHold | { taken: string[] }>;
};

/**
 * What the replicas share of the form-elicitation questions of `wallet serve` (src/mcp/confirmation.ts):
 * the key their `requestState` is sealed with, and the questions already answered yes.
 */
export type SharedQuestions = {
  /** The 32-byte key (made once, by the first replica that asks); never shown nor audited. */
  key(): Promise<Uint8Array>;
  /** Records question `id` as answered yes, for `ttlSeconds`; false when it was already (a replay). */
  spend(id: string, ttlSeconds: number): Promise<boolean>;
  /** Whether question `id` was answered yes already. */
  spent(id: string): Promise<boolean>;
};

/**
 * The state every replica must agree on. The files backend is the data directory as it always
 * was; the PostgreSQL backend (src/domain/state/pg/) shares it between replicas. Modules of the
 * same name in `files/` and `pg/` do the same job for each.
 */
export type StateStore = {
  readonly kind: 'files' | 'postgres';
  /** Where it is, for messages (a path, or host:port/database). */
  readonly shown: string;
  ledger(chain: Chain, name: string): CapLedger;
  /** The encrypted keystore: the data directory's files, or the store's rows (ciphertext only). */
  readonly keystore: WalletKeystore;
  /** The owner's passkeys (public keys, signature counters). */
  readonly passkeys: PasskeyRecords;
  /** The owner's approvals of agents' calls (each used once, by one replica). */
  readonly approvals: ApprovalRecords;
  /**
   * The MCP tasks that wait on approvals, with the results of their runs; a waiting call's
   * arguments only privately (an owner-only file; sealed under the keystore passphrase in the store).
   */
  readonly tasks: TaskRecords;
  appendAudit(record: AuditRecord): Promise<void>;
  /**
   * Dash coin reservations across replicas; undefined for the files backend, where one machine's
   * payments of a wallet take turns under its lock (the node's view of spent coins suffices).
   */
  readonly coins: CoinReservations | undefined;
  /**
   * The elicitation key and spent questions every replica shares; undefined for the files backend,
   * where each process keeps its own (one machine: a retry reaches the process that asked).
   */
  readonly questions: SharedQuestions | undefined;
  /** What the wallet broadcast on EVM chain `chainId`, by any replica. */
  sentLog(chainId: number): SentRecords;
  /**
   * Runs one payment of `address` on EVM chain `chainId` alone (across processes, and across
   * replicas for the store); the slot is undefined where the node's pending count is the nonce
   * (the files backend: one machine, one lock).
   */
  withAccount<T>(chainId: number, address: string, task: (slot: NonceSlot | undefined) => Promise<T>): Promise<T>;
  /** The EVM chain ids {@link reconcile} has anything to do on (none with the files backend): read from the store only. */
  toReconcile(): Promise<number[]>;
  /**
   * Reconciles the nonce reservations of chain `chainId` a replica left marked broadcast but
   * unrecorded (it died meanwhile) against the chain (`judge`): mined → committed (`mined`
   * records it as sent), never to be mined → released; none with the files backend.
   */
  reconcile(
    chainId: number,
    judge: (reservation: MarkedReservation) => Promise<ChainVerdict>,
    mined: (reservation: MarkedReservation) => Promise<void>,
  ): Promise<Reconciled>;
  close(): Promise<void>;
};

/** Where the 24-hour counts are read from, for the spending policy. */
export type LedgerSource = { ledger(chain: Chain, name: string): Promise<CapLedger> };

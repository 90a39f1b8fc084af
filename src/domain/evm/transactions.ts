import { setTimeout as sleep } from 'node:timers/promises';
import {
  getAddress,
  keccak256,
  parseTransaction,
  recoverTransactionAddress,
  serializeTransaction,
  type Hash,
  type Hex,
  type TransactionSerializable,
  type TransactionSerializableEIP1559,
  type TransactionSerialized,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { WalletError } from '../errors.js';
import type { ProgressReporter } from '../net/chain-backend.js';
import type { EvmNode } from '../net/evm-rpc.js';
import {
  broadcastReserved,
  checkAutonomy,
  checkBeforeSigning,
  checkSpend,
  policyFeeRefusal,
  reserveSpend,
  type CountedSpend,
  type LedgerSpend,
  type Recipient,
  type Reservation,
  type SpendingPolicy,
} from '../policy/spending-policy.js';
import type { Authority } from '../policy/authority.js';
import { hasTokenCallSelector, tokenMovesOfCalldata } from './token-moves.js';
import type { WalletServices } from '../services.js';
import { resolveAccount, resolveAddress, resolveCounterparty, withAccountKey, type EvmAccount } from './accounts.js';
import { SentLog } from './sent-log.js';
import type { EvmAddress } from './address.js';
import { DEFAULT_MAX_FEE_WEI, parseWei } from './amount.js';
import { checkChainId, connectEvm, evmNetwork } from './network.js';

const HEX_DATA = /^0x([0-9a-fA-F]{2})*$/;
/** The largest calldata accepted: a contract's init code is capped at 48 KiB by EIP-3860. */
const MAX_DATA_BYTES = 128 * 1024;
const RECEIPT_POLL_MS = 500;

/** An EIP-1559 transaction ready to sign, with what it may cost. */
export type EvmTxPlan = {
  network: string;
  chainId: number;
  from: EvmAddress;
  to: EvmAddress | null;
  value: bigint;
  data: Hex;
  nonce: number;
  gasLimit: bigint;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** gas limit × max fee per gas: the most the fee can be. */
  maxFee: bigint;
  /** The unsigned transaction, EIP-2718 type 2, hex. */
  unsigned: Hex;
};

export type TxRequest = {
  from: string;
  to: string | undefined;
  value: string;
  data: string | undefined;
  network: string;
  gasLimit?: string | undefined;
  nonce?: number | undefined;
};

/**
 * Builds an EIP-1559 transaction from the node's view: chain id, pending nonce, gas estimate and
 * fees. Refuses (`INSUFFICIENT_FUNDS`) when the sender cannot pay value plus the most the fee can be.
 */
export async function createTransaction(
  services: WalletServices,
  request: TxRequest,
  signal?: AbortSignal,
): Promise<EvmTxPlan> {
  const parsed = await parseTxRequest(services, request);
  return plan(await connectEvm(services, request.network, signal), parsed);
}

type ParsedTxRequest = {
  from: EvmAddress;
  to: EvmAddress | null;
  value: bigint;
  data: Hex;
  gasLimit?: string | undefined;
  nonce?: number | undefined;
};

async function parseTxRequest(services: WalletServices, request: TxRequest): Promise<ParsedTxRequest> {
  const from = await resolveAddress(services, request.from, 'address');
  const to = request.to === undefined ? null : await resolveCounterparty(services, request.to, 'to');
  const value = parseWei(request.value, 'value_wei');
  const data = parseData(request.data);
  if (to === null && data === '0x') {
    throw new WalletError(
      'INVALID_PARAM',
      'A transaction without to deploys a contract: it needs data (the init code).',
      {
        hint: 'Pass to for a payment or call.',
      },
    );
  }
  return { from, to, value, data, gasLimit: request.gasLimit, nonce: request.nonce };
}

async function plan(node: EvmNode, request: ParsedTxRequest): Promise<EvmTxPlan> {
  const { from, to, value, data } = request;
  const call = { from, to, value, data: data === '0x' ? undefined : data };
  const [nonce, gasLimit, fees, balance] = await Promise.all([
    request.nonce ?? node.nonce(from),
    request.gasLimit === undefined ? node.estimateGas(call) : parseWei(request.gasLimit, 'gas_limit'),
    node.fees(),
    node.balance(from),
  ]);
  const maxFee = gasLimit * fees.maxFeePerGas;
  if (balance < value + maxFee) {
    throw new WalletError(
      'INSUFFICIENT_FUNDS',
      `${from} has ${balance} wei; this needs ${value + maxFee} (value ${value} + fee up to ${maxFee}).`,
      { hint: 'Lower value_wei, or fund the account first.' },
    );
  }
  const transaction: TransactionSerializableEIP1559 = {
    type: 'eip1559',
    chainId: node.network.chainId,
    nonce,
    ...(to === null ? {} : { to }),
    value,
    data,
    gas: gasLimit,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  };
  return {
    network: node.network.network,
    chainId: node.network.chainId,
    from,
    to,
    value,
    data,
    nonce,
    gasLimit,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    maxFee,
    unsigned: serializeTransaction(transaction),
  };
}

function parseData(text: string | undefined): Hex {
  if (text === undefined || text === '') return '0x';
  const data = text.trim();
  if (!HEX_DATA.test(data)) throw new WalletError('INVALID_PARAM', 'data must be 0x followed by whole bytes in hex.');
  if ((data.length - 2) / 2 > MAX_DATA_BYTES) {
    throw new WalletError('INVALID_PARAM', `data is larger than ${MAX_DATA_BYTES} bytes.`);
  }
  return data as Hex;
}

/** A signed transaction as the tools show it. */
export type SignedTx = {
  signed: Hex;
  hash: Hash;
  from: EvmAddress;
  to: EvmAddress | null;
  chainId: number;
  nonce: number;
  value: bigint;
  maxFee: bigint;
};

/**
 * Signs an unsigned transaction offline with a keystore account, after checking it is for the
 * network named (its chain id) and carries a chain id at all (no replayable pre-EIP-155 ones).
 */
export async function signTransaction(
  services: WalletServices,
  request: { unsigned: string; from: string; network: string; maxFee: string | undefined; authority: Authority },
): Promise<SignedTx> {
  const network = await evmNetwork(services, request.network);
  const transaction = readTransaction(request.unsigned, 'unsigned_tx');
  if (transaction.r !== undefined || transaction.s !== undefined) {
    throw new WalletError('INVALID_PARAM', 'unsigned_tx is already signed.', { hint: 'Send it with evm_tx_send.' });
  }
  checkChainId(transaction.chainId, network, 'The transaction');
  const account = await resolveAccount(services, request.from);
  const spend = {
    ...countedSpend(transaction),
    key: spendKey(account.address, transaction),
    authority: request.authority,
    fee: maxFeeOf(transaction),
  };
  await checkBeforeSigning(services.dataDir, network.policy, spend);
  checkFeeCap(maxFeeOf(transaction), request.maxFee, network.policy);
  const { value: signed } = await signReserved(services, account, transaction, network.policy, spend);
  return describeSigned(signed, account.address);
}

/**
 * Signs as a spend the network's 24-hour cap counts (see `reserveSpend`); without a cap, only
 * signs. The key is unlocked first, so the ledger's lock is never held through a slow unlock.
 */
function signReserved(
  services: WalletServices,
  account: EvmAccount,
  transaction: TransactionSerializable,
  policy: SpendingPolicy | null,
  spend: LedgerSpend,
): Promise<Reservation<Hex>> {
  return withAccountKey(services, account, (privateKey) =>
    reserveSpend(services.dataDir, policy, spend, async () => {
      const signed = await privateKeyToAccount(privateKey).signTransaction(transaction);
      return { value: signed, txid: keccak256(signed) };
    }),
  );
}

/**
 * What a transaction spends as the policy counts it: its value, paid to `to`, and the tokens its
 * calldata moves (ERC-20 `transfer`, `transferFrom`, `approve`, `increaseAllowance`), whose recipients and spenders the
 * allowlist checks and whose amounts the token caps count. Calldata the wallet cannot read makes
 * the spend unreadable: never autonomous. A deployment has no `to`.
 */
function countedSpend(transaction: {
  to?: string | null | undefined;
  value?: bigint | undefined;
  data?: Hex | undefined;
}): CountedSpend {
  const recipients: Recipient[] = [
    transaction.to
      ? { address: getAddress(transaction.to), what: 'to' }
      : { address: null, what: 'a contract deployment (no to)' },
  ];
  const amount = transaction.value ?? 0n;
  const data = transaction.data ?? '0x';
  if (data === '0x') return { amount, recipients };
  const { moves, readable } = tokenMovesOfCalldata(transaction.to ? getAddress(transaction.to) : null, data);
  if (readable) return { amount, recipients, tokens: moves };
  if (hasTokenCallSelector(data)) {
    recipients.push({ address: null, what: 'an undecodable ERC-20 call in data' });
    return { amount, recipients, unreadable: 'its ERC-20 calldata does not decode' };
  }
  return {
    amount,
    recipients,
    unreadable: 'its calldata is a contract call the wallet cannot read (only ERC-20 transfers and approvals are)',
  };
}

/**
 * The spend's key in the ledger: the signer and the transaction without its signature, the same
 * before signing and after, whoever sends it.
 */
function spendKey(from: EvmAddress, transaction: TransactionSerializable): string {
  const {
    r: _r,
    s: _s,
    v: _v,
    yParity: _yParity,
    ...unsigned
  } = transaction as TransactionSerializable & {
    r?: unknown;
    s?: unknown;
    v?: unknown;
    yParity?: unknown;
  };
  return `${from}:${keccak256(serializeTransaction(unsigned as TransactionSerializable))}`;
}

/** The kinds of transaction the wallet signs and sends: legacy with EIP-155, EIP-2930, EIP-1559. */
const SUPPORTED_TYPES = new Set(['legacy', 'eip2930', 'eip1559']);

function readTransaction(text: string, field: string): TransactionSerializable {
  const hex = text.trim();
  if (!HEX_DATA.test(hex) || hex === '0x') {
    throw new WalletError('INVALID_PARAM', `${field} must be a serialized transaction in hex (0x…).`);
  }
  let transaction: TransactionSerializable;
  try {
    transaction = parseTransaction(hex as Hex);
  } catch {
    throw new WalletError('INVALID_PARAM', `${field} is not a transaction viem can decode (RLP or type byte wrong).`);
  }
  if (!SUPPORTED_TYPES.has(transaction.type ?? '')) {
    throw new WalletError(
      'INVALID_PARAM',
      `${field} is a ${transaction.type ?? 'unknown'} transaction; this wallet signs legacy, EIP-2930 and EIP-1559 ones.`,
    );
  }
  return transaction;
}

function describeSigned(signed: Hex, from: EvmAddress): SignedTx {
  const transaction = parseTransaction(signed);
  return {
    signed,
    hash: keccak256(signed),
    from,
    to: transaction.to ? getAddress(transaction.to) : null,
    chainId: transaction.chainId ?? 0,
    nonce: transaction.nonce ?? 0,
    value: transaction.value ?? 0n,
    maxFee: maxFeeOf(transaction),
  };
}

function maxFeeOf(transaction: TransactionSerializable): bigint {
  const perGas = transaction.maxFeePerGas ?? transaction.gasPrice ?? 0n;
  return (transaction.gas ?? 0n) * perGas;
}

/** Where a sent transaction stands. */
export type TxStatus = {
  hash: Hash;
  status: 'pending' | 'success' | 'reverted';
  blockNumber: bigint | null;
  gasUsed: bigint | null;
  fee: bigint | null;
  contractAddress: EvmAddress | null;
};

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
  const transaction = readTransaction(request.signed, 'signed_tx');
  if (transaction.r === undefined) {
    throw new WalletError('INVALID_PARAM', 'signed_tx has no signature.', { hint: 'Sign it first with evm_tx_sign.' });
  }
  checkChainId(transaction.chainId, network, 'The transaction');
  const signed = request.signed.trim() as Hex;
  const from = await recoverTransactionAddress({ serializedTransaction: signed as TransactionSerialized });
  const summary = describeSigned(signed, from);
  const spend = {
    ...countedSpend(transaction),
    key: spendKey(from, transaction),
    authority: request.authority,
    fee: summary.maxFee,
  };
  checkSpend(network.policy, spend);
  checkAutonomy(network.policy, spend, request.authority);
  checkFeeCap(summary.maxFee, request.maxFee, network.policy);
  const node = await connectEvm(services, request.network, options.signal);
  const reservation = await reserveSpend(services.dataDir, network.policy, spend, async () => ({
    value: undefined,
    txid: summary.hash,
  }));
  await broadcastReserved(reservation, () => broadcast(services, node, summary));
  const status = await statusOf(node, summary.hash, request.wait ? request.waitSeconds : 0, options);
  return { ...summary, ...status };
}

/**
 * Broadcasts unless the node already has the transaction, then records it in the chain's
 * {@link SentLog} (evm_txs_list). When the broadcast itself fails to get an answer, the
 * transaction may still have gone out: the node is asked again, and if it still cannot tell, the
 * error names the hash so nobody pays twice by retrying blindly.
 */
async function broadcast(services: WalletServices, node: EvmNode, tx: SignedTx): Promise<void> {
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
  const [move] = tx.to === null ? [] : tokenMovesOfCalldata(tx.to, parseTransaction(tx.signed).data ?? '0x').moves;
  await new SentLog(services.dataDir, tx.chainId)
    .append({
      hash: tx.hash,
      from: tx.from,
      to: tx.to,
      value: tx.value.toString(),
      nonce: tx.nonce,
      sent_at: new Date().toISOString(),
      token:
        move?.kind === 'transfer'
          ? { address: move.token, to: move.counterparty, amount: move.amount.toString() }
          : null,
    })
    .catch(() => undefined);
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

/**
 * Refuses a fee above the binding cap, before anything is signed or sent: the caller's
 * `max_fee_wei` (0.01 ether by default) or the network policy's `max_fee_wei`, whichever is
 * lower; the refusal names the one that bound.
 */
function checkFeeCap(maxFee: bigint, cap: string | undefined, policy: SpendingPolicy | null): void {
  const limit = cap === undefined ? DEFAULT_MAX_FEE_WEI : parseWei(cap, 'max_fee_wei');
  const refused = policyFeeRefusal(policy, maxFee, limit, 'may reach');
  if (refused) throw refused;
  if (maxFee <= limit) return;
  throw new WalletError(
    'POLICY_VIOLATION',
    `The fee may reach ${maxFee} wei, above max_fee_wei ${limit}; nothing was signed or sent.`,
    { hint: 'Raise max_fee_wei if this fee is intended, or create the transaction again when fees are lower.' },
  );
}

/** The receipt's verdict, polling up to `waitSeconds` for one while reporting progress. */
async function statusOf(
  node: EvmNode,
  hash: Hash,
  waitSeconds: number,
  options: { signal?: AbortSignal; progress?: ProgressReporter },
): Promise<TxStatus> {
  const deadline = Date.now() + waitSeconds * 1000;
  for (let poll = 0; ; poll++) {
    const receipt = await node.receipt(hash);
    if (receipt) {
      options.progress?.(1, 1, `${hash} mined in block ${receipt.blockNumber}`);
      return {
        hash,
        status: receipt.status,
        blockNumber: receipt.blockNumber,
        gasUsed: receipt.gasUsed,
        fee: receipt.gasUsed * receipt.effectiveGasPrice,
        contractAddress: receipt.contractAddress ? getAddress(receipt.contractAddress) : null,
      };
    }
    if (Date.now() >= deadline)
      return { hash, status: 'pending', blockNumber: null, gasUsed: null, fee: null, contractAddress: null };
    const waited = Math.min(waitSeconds, poll * (RECEIPT_POLL_MS / 1000));
    options.progress?.(waited, waitSeconds, `waiting for ${hash} to be mined`);
    await sleep(RECEIPT_POLL_MS, undefined, options.signal ? { signal: options.signal } : undefined);
  }
}

/** A transaction and its receipt by hash; `found` is false when the node has never seen it. */
export async function getTransaction(
  services: WalletServices,
  request: { hash: string; network: string | undefined },
  signal?: AbortSignal,
): Promise<
  | { found: false; hash: Hash; network: string }
  | ({
      found: true;
      network: string;
      from: EvmAddress;
      to: EvmAddress | null;
      value: bigint;
      nonce: number;
      data: Hex;
      confirmations: bigint;
    } & TxStatus)
> {
  const hash = request.hash.trim();
  if (!/^0x[0-9a-fA-F]{64}$/.test(hash)) {
    throw new WalletError('INVALID_PARAM', 'hash must be 0x followed by 64 hex digits.');
  }
  const node = await connectEvm(services, request.network, signal);
  const transaction = await node.transaction(hash as Hash);
  if (!transaction) return { found: false, hash: hash as Hash, network: node.network.network };
  const status = await statusOf(node, transaction.hash, 0, {});
  const tip = status.blockNumber === null ? null : await node.blockNumber();
  return {
    found: true,
    network: node.network.network,
    from: getAddress(transaction.from),
    to: transaction.to ? getAddress(transaction.to) : null,
    value: transaction.value,
    nonce: transaction.nonce,
    data: transaction.input,
    confirmations: tip === null || status.blockNumber === null ? 0n : tip - status.blockNumber + 1n,
    ...status,
  };
}

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

/** What a serialized transaction (signed or not) pays, read offline: for questions and audit lines. */
export type TransactionGist = { to: EvmAddress | null; value: bigint; maxFee: bigint };

/** Decodes `hex` (`INVALID_PARAM` when it is not a transaction this wallet handles). */
export function transactionGist(hex: string, field: string): TransactionGist {
  const transaction = readTransaction(hex, field);
  return {
    to: transaction.to ? getAddress(transaction.to) : null,
    value: transaction.value ?? 0n,
    maxFee: maxFeeOf(transaction),
  };
}

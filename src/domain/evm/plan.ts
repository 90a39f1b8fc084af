import { serializeTransaction, type Hex, type TransactionSerializableEIP1559 } from 'viem';
import { WalletError } from '../errors.js';
import type { EvmNode } from '../net/evm-rpc.js';
import type { WalletServices } from '../services.js';
import { resolveAddress, resolveCounterparty } from './accounts.js';
import type { EvmAddress } from './address.js';
import { parseWei } from './amount.js';
import { connectNode, evmNetwork } from './network.js';
import { HEX_DATA } from './transaction.js';

/** The largest calldata accepted: a contract's init code is capped at 48 KiB by EIP-3860. */
const MAX_DATA_BYTES = 128 * 1024;

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
  const network = await evmNetwork(services, request.network);
  const node = await connectNode(network, signal);
  const store = await services.stateStore();
  if (parsed.nonce !== undefined || store.kind === 'files') return plan(node, parsed);
  // Across replicas, the nonce an evm_funds_send would take: past those other replicas broadcast in
  // the last two minutes (through a node that may not show them yet), read under the account's lock
  // (after a payment under way went out). Nothing is reserved: evm_tx_send checks it again.
  const nonce = await store.withAccount(network.chainId, parsed.from, async (slot) =>
    slot?.next(await node.nonce(parsed.from)),
  );
  return plan(node, nonce === undefined ? parsed : { ...parsed, nonce });
}

export type ParsedTxRequest = {
  from: EvmAddress;
  to: EvmAddress | null;
  value: bigint;
  data: Hex;
  gasLimit?: string | undefined;
  nonce?: number | undefined;
};

async function parseTxRequest(services: WalletServices, request: TxRequest): Promise<ParsedTxRequest> {
  return parseTxRequestFrom(services, await resolveAddress(services, request.from, 'address'), request);
}

/** {@link parseTxRequest} for a sender its caller has resolved already (a keystore account's address). */
export async function parseTxRequestFrom(
  services: WalletServices,
  from: EvmAddress,
  request: Omit<TxRequest, 'from'>,
): Promise<ParsedTxRequest> {
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

export async function plan(node: EvmNode, request: ParsedTxRequest): Promise<EvmTxPlan> {
  const { from, to, value, data } = request;
  const [nonce, fees, balance] = await Promise.all([
    request.nonce ?? node.nonce(from),
    node.fees(),
    node.balance(from),
  ]);
  // Estimated with the fee fields it will be signed with: the node runs it as it will run.
  const call = { from, to, value, data: data === '0x' ? undefined : data, ...fees };
  const gasLimit =
    request.gasLimit === undefined ? await node.estimateGas(call) : parseWei(request.gasLimit, 'gas_limit');
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

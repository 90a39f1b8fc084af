import {
  BaseError,
  ContractFunctionExecutionError,
  createPublicClient,
  custom,
  defineChain,
  erc20Abi,
  ExecutionRevertedError,
  InsufficientFundsError,
  NonceTooLowError,
  RpcRequestError,
  type Hash,
  type Hex,
  type PublicClient,
  type Chain,
  type Transport,
  type Transaction,
  type TransactionReceipt,
} from 'viem';
import { z } from 'zod';
import { noEndpointError, redactUrl, type ResolvedNetwork } from '../config/endpoints.js';
import { WalletError } from '../errors.js';
import { httpJson } from './http.js';

const EVM_TIMEOUT_MS = 10_000;
/** A broadcast waits longer: giving up early only hides whether it went out. */
const BROADCAST_TIMEOUT_MS = 30_000;

const RpcReply = z.union([
  z.object({ result: z.unknown() }),
  z.object({ error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }) }),
]);

export type TokenInfo = { symbol: string | null; decimals: number; balance: bigint };

export type FeeEstimate = { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };

/**
 * A call to estimate: with the fee fields the transaction will be signed with, so the node
 * estimates it as it will run (a contract may read the gas price or base fee, and the sender must
 * afford the gas at that price).
 */
export type CallRequest = {
  from: Hex;
  to: Hex | null;
  value: bigint;
  data: Hex | undefined;
  maxFeePerGas?: bigint | undefined;
  maxPriorityFeePerGas?: bigint | undefined;
};

/**
 * An EVM node reached over JSON-RPC, through viem's actions and our own HTTP layer (timeouts,
 * retries for reads only, credentials kept out of messages). Every failure becomes a
 * `WalletError`: `BACKEND_UNAVAILABLE` when the node cannot be reached, `INSUFFICIENT_FUNDS`,
 * `INVALID_PARAM` for what the node refuses.
 */
export class EvmNode {
  /** The endpoint with credentials masked, for messages. */
  readonly endpoint: string;
  private readonly client: PublicClient<Transport, Chain>;
  private readonly request: (call: { method: string; params?: unknown; timeoutMs?: number }) => Promise<unknown>;

  private constructor(
    readonly network: ResolvedNetwork & { url: string; chainId: number },
    signal: AbortSignal | undefined,
  ) {
    this.endpoint = redactUrl(network.url);
    let id = 0;
    const request = async ({
      method,
      params,
      timeoutMs,
    }: {
      method: string;
      params?: unknown;
      timeoutMs?: number;
    }): Promise<unknown> => {
      const response = await httpJson({
        url: network.url,
        method: 'POST',
        body: { jsonrpc: '2.0', id: ++id, method, params: params ?? [] },
        // A call with its own deadline (an optional feature, see `optional`) is asked once.
        idempotent: method !== 'eth_sendRawTransaction' && timeoutMs === undefined,
        timeoutMs: timeoutMs ?? (method === 'eth_sendRawTransaction' ? BROADCAST_TIMEOUT_MS : EVM_TIMEOUT_MS),
        signal,
      });
      const reply = RpcReply.safeParse(response.json);
      if (!reply.success) {
        throw new WalletError(
          'BACKEND_UNAVAILABLE',
          `${this.endpoint} answered ${method} with HTTP ${response.status}, not a JSON-RPC reply.`,
          { hint: 'Is the URL an EVM node JSON-RPC endpoint?' },
        );
      }
      if ('error' in reply.data)
        throw new RpcRequestError({ body: { method }, error: reply.data.error, url: this.endpoint });
      return reply.data.result;
    };
    this.request = request;
    this.client = createPublicClient({
      chain: defineChain({
        id: network.chainId,
        name: network.network,
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: { default: { http: [this.endpoint] } },
      }),
      transport: custom({ request }, { retryCount: 0 }),
      pollingInterval: 250,
    });
  }

  /**
   * A node for a configured EVM network, after checking that it serves that network's chain id:
   * a node of another chain is refused (`NETWORK_MISMATCH`) before anything else is asked.
   */
  static async connect(network: ResolvedNetwork, signal?: AbortSignal): Promise<EvmNode> {
    const { url, chainId } = network;
    if (url === null || chainId === null) {
      throw noEndpointError('evm', network.network);
    }
    const node = new EvmNode({ ...network, url, chainId }, signal);
    const served = await node.run(() => node.client.getChainId());
    if (served !== chainId) {
      throw new WalletError(
        'NETWORK_MISMATCH',
        `The node at ${node.endpoint} serves chain id ${served}, not ${chainId} (${network.network}).`,
        { hint: `Point evm.${network.network} at a node of chain ${chainId} (network_info shows the endpoints).` },
      );
    }
    return node;
  }

  balance(address: Hex): Promise<bigint> {
    return this.run(() => this.client.getBalance({ address }));
  }

  /** The next nonce of an account, counting its transactions still in the mempool. */
  nonce(address: Hex): Promise<number> {
    return this.run(() => this.client.getTransactionCount({ address, blockTag: 'pending' }));
  }

  estimateGas(call: CallRequest): Promise<bigint> {
    return this.run(
      () =>
        this.client.estimateGas({
          account: call.from,
          ...(call.to === null ? {} : { to: call.to }),
          value: call.value,
          ...(call.data === undefined ? {} : { data: call.data }),
          ...(call.maxFeePerGas === undefined
            ? {}
            : { maxFeePerGas: call.maxFeePerGas, maxPriorityFeePerGas: call.maxPriorityFeePerGas }),
        }),
      'request',
    );
  }

  /** EIP-1559 fees from the latest base fee and the node's priority fee suggestion. */
  fees(): Promise<FeeEstimate> {
    return this.run(async () => {
      const fees = await this.client.estimateFeesPerGas({ type: 'eip1559' });
      return { maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas: fees.maxPriorityFeePerGas };
    });
  }

  /** An ERC-20 balance with the token's decimals and symbol (null when the token has none readable). */
  token(token: Hex, holder: Hex): Promise<TokenInfo> {
    return this.run(async () => {
      const code = await this.client.getCode({ address: token });
      if (code === undefined || code === '0x') {
        throw new WalletError('INVALID_PARAM', `No contract at token ${token} on ${this.network.network}.`, {
          hint: 'Check the token address and the network: a token has its own address on each chain.',
        });
      }
      const [balance, decimals, symbol] = await Promise.all([
        this.client.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [holder] }),
        this.client.readContract({ address: token, abi: erc20Abi, functionName: 'decimals' }),
        this.client.readContract({ address: token, abi: erc20Abi, functionName: 'symbol' }).catch(() => null),
      ]).catch((error: unknown) => {
        const failure = nodeFailure(error, this.endpoint, 'read');
        if (failure.code !== 'INVALID_PARAM') throw failure;
        throw new WalletError(
          'INVALID_PARAM',
          `The contract at token ${token} on ${this.network.network} is not an ERC-20: balanceOf() or decimals() fails.`,
          { hint: 'Check the token address: it must be the ERC-20 contract itself.', cause: error },
        );
      });
      return { balance, decimals, symbol: symbol === null ? null : withoutControls(symbol).slice(0, 32) };
    });
  }

  /** Broadcasts a signed transaction; resolves to its hash. */
  send(serialized: Hex): Promise<Hash> {
    return this.run(() => this.client.sendRawTransaction({ serializedTransaction: serialized }), 'request');
  }

  /** A transaction by hash, or undefined when the node does not know it. */
  transaction(hash: Hash): Promise<Transaction | undefined> {
    return this.run(() => this.client.getTransaction({ hash }).catch(orUndefined('TransactionNotFoundError')));
  }

  /** A transaction's receipt, or undefined while it is not mined. */
  receipt(hash: Hash): Promise<TransactionReceipt | undefined> {
    return this.run(() =>
      this.client.getTransactionReceipt({ hash }).catch(orUndefined('TransactionReceiptNotFoundError')),
    );
  }

  /**
   * One JSON-RPC call the wallet can do without (a simulation): asked once, answered within
   * `timeoutMs` or failed. Its answer is the node's, unchecked: the caller validates it. Fails with
   * a `WalletError` carrying the node's words (a method the node lacks is `BACKEND_UNAVAILABLE`).
   */
  optional(method: string, params: unknown[], timeoutMs: number): Promise<unknown> {
    return this.run(() => this.request({ method, params, timeoutMs }));
  }

  blockNumber(): Promise<bigint> {
    return this.run(() => this.client.getBlockNumber({ cacheTime: 0 }));
  }

  /**
   * Runs a node call, turning its failure into a `WalletError`. What the node refuses is the
   * request's fault for a transaction or gas estimate (`request`), the node's for a read.
   */
  private async run<T>(action: () => Promise<T>, refusal: 'request' | 'read' = 'read'): Promise<T> {
    try {
      return await action();
    } catch (error) {
      throw nodeFailure(error, this.endpoint, refusal);
    }
  }
}

function orUndefined(name: string): (error: unknown) => undefined {
  return (error) => {
    if (error instanceof BaseError && error.walk((cause) => cause instanceof Error && cause.name === name)) {
      return undefined;
    }
    throw error;
  };
}

/** What a failed node call means for the caller, as a `WalletError` with the node's own words. */
function nodeFailure(error: unknown, endpoint: string, refusal: 'request' | 'read'): WalletError {
  if (error instanceof WalletError) return error;
  if (!(error instanceof BaseError)) {
    // viem read an answer it could not use (a balance that is no number, a block of the wrong
    // shape): the node's fault, not ours.
    return new WalletError('BACKEND_UNAVAILABLE', `The node at ${endpoint} gave an answer that cannot be read.`, {
      hint: 'A node that is failing or not an EVM JSON-RPC endpoint; try again or use another endpoint.',
      cause: error,
    });
  }
  const ours = error.walk((cause) => cause instanceof WalletError);
  if (ours instanceof WalletError) return ours;
  if (error.walk((cause) => cause instanceof InsufficientFundsError)) {
    return new WalletError('INSUFFICIENT_FUNDS', 'The account cannot pay the value plus the gas at the current fees.', {
      hint: 'evm_balance_get shows the balance; lower value_wei or fund the account.',
      cause: error,
    });
  }
  if (error.walk((cause) => cause instanceof NonceTooLowError)) {
    return new WalletError('INVALID_PARAM', "The transaction's nonce is already used by a mined transaction.", {
      hint: 'Create the transaction again (evm_tx_create) to get the next nonce.',
      cause: error,
    });
  }
  const reverted = error.walk(
    (cause) => cause instanceof ExecutionRevertedError || cause instanceof ContractFunctionExecutionError,
  );
  if (reverted instanceof BaseError) {
    return new WalletError('INVALID_PARAM', `The node says this call reverts: ${oneLine(reverted.shortMessage)}`, {
      cause: error,
    });
  }
  const rpc = error.walk((cause) => cause instanceof RpcRequestError);
  const details = oneLine(rpc instanceof BaseError ? rpc.details : error.shortMessage);
  if (refusal === 'request') {
    return new WalletError('INVALID_PARAM', `The node at ${endpoint} refused the transaction: ${details}`, {
      cause: error,
    });
  }
  return new WalletError('BACKEND_UNAVAILABLE', `The node at ${endpoint} failed to answer: ${details}`, {
    hint: 'A node that is syncing, rate-limited or failing; try again or use another endpoint.',
    cause: error,
  });
}

/** Text from a node or a contract, without control characters (no terminal escapes). */
function withoutControls(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
}

/** A node's words, safe to show: the first line, control characters removed, at most 200 characters. */
function oneLine(text: string): string {
  const first = withoutControls(text.split('\n')[0] ?? '');
  return first.length > 200 ? `${first.slice(0, 200)}…` : first;
}

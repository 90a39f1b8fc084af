import type { Authority } from '../policy/authority.js';
import { encodeFunctionData, erc20Abi } from 'viem';
import { WalletError } from '../errors.js';
import type { ProgressReporter } from '../net/chain-backend.js';
import type { WalletServices } from '../services.js';
import { resolveAccount, resolveCounterparty } from './accounts.js';
import { parseEvmAddress, type EvmAddress } from './address.js';
import { formatUnits } from '../../shared/amounts.js';
import { MAX_UINT256, TOKEN_UNITS_PATTERN } from './amount.js';
import { connectNode, evmNetwork } from './network.js';
import { pay } from './pay.js';
import type { EvmTxPlan } from './plan.js';
import type { AssetChanges } from './simulate.js';
import type { TxStatus } from './status.js';
import type { SignedTx } from './transaction.js';

export type TokenTransferRequest = {
  /** The sending keystore account: address or alias. */
  from: string;
  token: string;
  to: string;
  /** Token base units, digits. */
  amount: string;
  network: string;
  dryRun: boolean;
  wait: boolean;
  waitSeconds: number;
  maxFee: string | undefined;
  authority: Authority;
};

export type TokenTransfer = {
  token: EvmAddress;
  /** The token's symbol; null when it has none readable. */
  symbol: string | null;
  decimals: number;
  /** Who receives the tokens. */
  to: EvmAddress;
  amount: bigint;
  /** The transaction: to the token contract, value 0, `transfer(to, amount)` calldata. */
  plan: EvmTxPlan;
  /** Null for a dry run. */
  sent: (SignedTx & TxStatus) | null;
  /** What a simulation of the call shows (see `Payment.simulation`). */
  simulation?: AssetChanges | undefined;
};

/**
 * Transfers `amount` base units of an ERC-20 from a keystore account to `to`: reads the token's
 * decimals, symbol and the sender's balance (`INVALID_PARAM` when `token` is no ERC-20 contract,
 * `INSUFFICIENT_FUNDS` when the balance is short), then pays the token contract 0 wei with
 * `transfer(to, amount)` calldata through `pay` (as `sendFunds` does), so that every check of a payment (network,
 * fee cap, spending policy, ledger) applies to it unchanged. A dry run signs and sends nothing.
 *
 * @example
 * const { sent } = await transferToken(services, { from: 'savings', token: usdc, to: shop, amount: '2500000', network: 'sepolia', dryRun: false, wait: true, waitSeconds: 120, maxFee: undefined });
 */
export async function transferToken(
  services: WalletServices,
  request: TokenTransferRequest,
  options: { signal?: AbortSignal; progress?: ProgressReporter } = {},
): Promise<TokenTransfer> {
  const token = parseEvmAddress(request.token, 'token');
  const to = await resolveCounterparty(services, request.to, 'to');
  const amount = parseTokenUnits(request.amount);
  if (to === token) {
    throw new WalletError('INVALID_PARAM', 'to is the token contract itself: tokens sent there are usually lost.', {
      hint: "Pass the recipient's address as to, and the token contract as token.",
    });
  }
  const account = await resolveAccount(services, request.from);
  const network = await evmNetwork(services, request.network);
  const node = await connectNode(network, options.signal);
  const held = await node.token(token, account.address);
  const unit = held.symbol ?? 'tokens';
  if (held.balance < amount) {
    throw new WalletError(
      'INSUFFICIENT_FUNDS',
      `${account.address} holds ${formatUnits(held.balance, held.decimals)} ${unit} (${held.balance} base units) of token ${token}; this transfer needs ${amount}.`,
      { hint: 'Lower amount (in base units), or fund the account with the token first.' },
    );
  }
  const data = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] });
  // The account, network and node resolved here are the payment's: pay resolves none of them again.
  const { plan, sent, simulation } = await pay(
    services,
    { account, network, node },
    { from: account.address, to: token, value: 0n, data },
    request,
    options,
  );
  return { token, symbol: held.symbol, decimals: held.decimals, to, amount, plan, sent, simulation };
}

/** Token base units in digits, 1 to 2^256 - 1; `INVALID_PARAM` naming `amount` otherwise. */
function parseTokenUnits(text: string): bigint {
  if (!TOKEN_UNITS_PATTERN.test(text)) {
    throw new WalletError(
      'INVALID_PARAM',
      'amount must be a whole number of token base units in digits, e.g. "2500000".',
      {
        hint: 'Base units: 1.5 tokens of a token with 6 decimals is "1500000" (evm_balance_get with token shows the decimals).',
      },
    );
  }
  const amount = BigInt(text);
  if (amount > MAX_UINT256) throw new WalletError('INVALID_PARAM', 'amount is larger than 2^256 - 1.');
  if (amount === 0n) {
    throw new WalletError('INVALID_PARAM', 'amount is 0: a transfer of nothing moves no token.', {
      hint: 'Pass the amount in base units, e.g. "1500000" for 1.5 tokens of a token with 6 decimals.',
    });
  }
  return amount;
}

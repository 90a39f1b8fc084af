import { getAddress, keccak256, serializeTransaction, type Hex, type TransactionSerializable } from 'viem';
import { WalletError } from '../errors.js';
import { policyFeeRefusal, type CountedSpend, type Recipient, type SpendingPolicy } from '../policy/spending-policy.js';
import type { EvmAddress } from './address.js';
import { DEFAULT_MAX_FEE_WEI, parseWei } from './amount.js';
import { tokenMovesOfCalldata } from './token-moves.js';

/**
 * What a transaction spends as the policy counts it: its value, paid to `to`, and the tokens its
 * calldata moves (ERC-20 `transfer`, `transferFrom`, `approve`, `increaseAllowance`), whose recipients and spenders the
 * allowlist checks and whose amounts the token caps count, decoded as the token contract decodes
 * them (bytes after the arguments ignored). Calldata the wallet cannot read makes the spend
 * unreadable: never autonomous. A token call whose arguments do not decode is refused outright
 * (INVALID_PARAM): whatever it moves, no cap could be checked. A deployment has no `to`.
 */
export function countedSpend(transaction: {
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
  const { moves, readable, garbled } = tokenMovesOfCalldata(transaction.to ? getAddress(transaction.to) : null, data);
  if (readable) return { amount, recipients, tokens: moves };
  if (garbled) {
    throw new WalletError(
      'INVALID_PARAM',
      `The transaction's data calls an ERC-20 function (selector ${data.slice(0, 10)}) with arguments that do not decode; nothing was signed or sent.`,
      {
        hint: 'Encode every argument of the token call in full (an address word with 12 zero bytes, then the amount): the wallet refuses a token call whose amount it cannot check against the caps.',
      },
    );
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
export function spendKey(from: EvmAddress, transaction: TransactionSerializable): string {
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

/**
 * Refuses a fee above the binding cap, before anything is signed or sent: the caller's
 * `max_fee_wei` (0.01 ether by default) or the network policy's `max_fee_wei`, whichever is
 * lower; the refusal names the one that bound.
 */
export function checkFeeCap(maxFee: bigint, cap: string | undefined, policy: SpendingPolicy | null): void {
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

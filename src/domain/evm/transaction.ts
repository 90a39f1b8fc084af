import { getAddress, keccak256, parseTransaction, type Hash, type Hex, type TransactionSerializable } from 'viem';
import { WalletError } from '../errors.js';
import type { EvmAddress } from './address.js';

/** 0x and whole bytes in hex: calldata, and a serialized transaction. */
export const HEX_DATA = /^0x([0-9a-fA-F]{2})*$/;

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
  /** Its calldata (`0x` for none). */
  data: Hex;
};

/** The kinds of transaction the wallet signs and sends: legacy with EIP-155, EIP-2930, EIP-1559. */
const SUPPORTED_TYPES = new Set(['legacy', 'eip2930', 'eip1559']);

/** Decodes a serialized transaction this wallet signs and sends (`INVALID_PARAM` otherwise). */
export function readTransaction(text: string, field: string): TransactionSerializable {
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

/**
 * A signed transaction as the tools show it. `transaction` is what was signed, when the caller
 * holds it decoded already (it signed it, or read it): then `signed` is not decoded again.
 */
export function describeSigned(
  signed: Hex,
  from: EvmAddress,
  transaction: TransactionSerializable = parseTransaction(signed),
): SignedTx {
  return {
    signed,
    hash: keccak256(signed),
    from,
    to: transaction.to ? getAddress(transaction.to) : null,
    chainId: transaction.chainId ?? 0,
    nonce: transaction.nonce ?? 0,
    value: transaction.value ?? 0n,
    maxFee: maxFeeOf(transaction),
    data: transaction.data ?? '0x',
  };
}

export function maxFeeOf(transaction: TransactionSerializable): bigint {
  const perGas = transaction.maxFeePerGas ?? transaction.gasPrice ?? 0n;
  return (transaction.gas ?? 0n) * perGas;
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

import { getAddress, type Hex } from 'viem';
import type { EvmAddress } from './address.js';

/**
 * What moves tokens, read from what the wallet is asked to sign: ERC-20 calldata of a transaction,
 * or EIP-712 typed data that a token contract (or Permit2) accepts as an authorization. The policy
 * counts these moves against its token caps and allowlist; what is not recognised here is not
 * readable, and needs a human.
 *
 * Recognition is by structure, never by name alone: a selector with calldata of at least its
 * arguments' length (what follows is ignored, as the token contract's ABI decoder ignores it) and
 * clean address words; a primary type with exactly the field names and types
 * of the standard's definition (and of every struct it uses). Anything else that calls itself
 * `Permit` is not recognised.
 */

type TokenMoveKind =
  | 'transfer'
  | 'transferFrom'
  | 'approve'
  | 'increaseAllowance'
  | 'permit'
  | 'dai-permit'
  | 'permit2'
  | 'transferWithAuthorization'
  | 'receiveWithAuthorization';

export type TokenMove = {
  kind: TokenMoveKind;
  /** The token contract (checksummed). */
  token: EvmAddress;
  /** Who receives (transfer*, *WithAuthorization) or who may spend (approve, increaseAllowance, permit*). */
  counterparty: EvmAddress;
  role: 'recipient' | 'spender';
  /** Token base units; for an unlimited allowance, the raw value (DAI's permit: 2^256 - 1). */
  amount: bigint;
  /** An allowance of 2^255 or more (Permit2: 2^160 - 1 or more), or DAI's permit with allowed = true. */
  unlimited: boolean;
};

/**
 * `readable`: the calldata is empty or a token call whose arguments decode; `trailingBytes` then
 * counts what follows its arguments, which the token contract ignores as Solidity's decoder does.
 * `garbled`: a token call (by its selector) whose arguments do not decode: refused, never shown or
 * counted as moving nothing.
 */
export type CalldataMoves = { moves: TokenMove[]; readable: boolean; trailingBytes?: number; garbled?: boolean };

export type TypedDataMoves = { moves: TokenMove[]; recognised: boolean; chainId: number | null };

export type TypedDataInput = {
  domain?: Record<string, unknown>;
  types: Record<string, readonly { name: string; type: string }[]>;
  primaryType: string;
  message: Record<string, unknown>;
};

/** An allowance this large is "unlimited" in practice: wallets and dapps ask for 2^256 - 1. */
const UNLIMITED_UINT256 = 1n << 255n;
/** Permit2 allowances are uint160; its "unlimited" is type(uint160).max. */
const UNLIMITED_UINT160 = (1n << 160n) - 1n;
const MAX_UINT256 = (1n << 256n) - 1n;

type CallShape = { kind: Extract<TokenMoveKind, 'transfer' | 'transferFrom' | 'approve' | 'increaseAllowance'> };

/** The ERC-20 calls that move tokens or grant an allowance, by selector (keccak256 of the signature). */
const TOKEN_CALLS: ReadonlyMap<string, CallShape & { words: number }> = new Map([
  ['0xa9059cbb', { kind: 'transfer', words: 2 }], // transfer(address,uint256)
  ['0x23b872dd', { kind: 'transferFrom', words: 3 }], // transferFrom(address,address,uint256)
  ['0x095ea7b3', { kind: 'approve', words: 2 }], // approve(address,uint256)
  ['0x39509351', { kind: 'increaseAllowance', words: 2 }], // increaseAllowance(address,uint256)
]);

const HEX = /^0x([0-9a-fA-F]{2})*$/;
/** An ABI address word: 12 zero bytes, then the address. */
const ADDRESS_WORD = /^0{24}([0-9a-fA-F]{40})$/;

/**
 * The token moves of calldata sent to `to`: one for an ERC-20 `transfer`, `transferFrom`,
 * `approve` or `increaseAllowance`, none for empty calldata. The arguments are decoded as the token
 * contract decodes them: from their fixed words, whatever bytes follow (counted in
 * `trailingBytes`), so a `transfer` with a byte appended still moves its amount and is counted so.
 * A token selector whose arguments do not decode (too short, a dirty address word, not hex) is
 * `garbled`. `readable` is false, with no moves, for anything else: another function, a deployment.
 *
 * @example
 * tokenMovesOfCalldata(usdc, encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [router, maxUint256] }))
 * // { readable: true, trailingBytes: 0, moves: [{ kind: 'approve', token: usdc, counterparty: router, role: 'spender', amount: 2n ** 256n - 1n, unlimited: true }] }
 */
export function tokenMovesOfCalldata(to: EvmAddress | null, data: Hex): CalldataMoves {
  if (data === '0x' || data === ('' as Hex)) return { moves: [], readable: true };
  const call = TOKEN_CALLS.get(data.slice(0, 10).toLowerCase());
  if (to === null || call === undefined) return { moves: [], readable: false };
  const garbled = { moves: [], readable: false, garbled: true };
  const body = data.slice(10);
  if (!HEX.test(data) || body.length < call.words * 64) return garbled;
  const words = Array.from({ length: call.words }, (_, index) => body.slice(index * 64, (index + 1) * 64));
  const addresses = words.slice(0, -1).map((word) => ADDRESS_WORD.exec(word)?.[1]);
  if (addresses.some((address) => address === undefined)) return garbled;
  const amount = BigInt(`0x${words[words.length - 1] ?? ''}`);
  const counterparty = getAddress(`0x${addresses[addresses.length - 1] ?? ''}`);
  const granting = call.kind === 'approve' || call.kind === 'increaseAllowance';
  return {
    readable: true,
    trailingBytes: (body.length - call.words * 64) / 2,
    moves: [
      {
        kind: call.kind,
        token: getAddress(to),
        counterparty,
        role: granting ? 'spender' : 'recipient',
        amount,
        unlimited: granting && amount >= UNLIMITED_UINT256,
      },
    ],
  };
}

type Field = { name: string; type: string };
type Types = TypedDataInput['types'];

const f = (name: string, type: string): Field => ({ name, type });

/** EIP-2612's `Permit`. */
const EIP2612_PERMIT = [
  f('owner', 'address'),
  f('spender', 'address'),
  f('value', 'uint256'),
  f('nonce', 'uint256'),
  f('deadline', 'uint256'),
];
/** DAI's (and other pre-EIP-2612 Maker-style tokens') `Permit`. */
const DAI_PERMIT = [
  f('holder', 'address'),
  f('spender', 'address'),
  f('nonce', 'uint256'),
  f('expiry', 'uint256'),
  f('allowed', 'bool'),
];
/** EIP-3009's `TransferWithAuthorization` and `ReceiveWithAuthorization` (USDC, x402). */
const EIP3009_AUTHORIZATION = [
  f('from', 'address'),
  f('to', 'address'),
  f('value', 'uint256'),
  f('validAfter', 'uint256'),
  f('validBefore', 'uint256'),
  f('nonce', 'bytes32'),
];
/** Permit2's AllowanceTransfer structs. */
const PERMIT_DETAILS = [f('token', 'address'), f('amount', 'uint160'), f('expiration', 'uint48'), f('nonce', 'uint48')];
const PERMIT_SINGLE = [f('details', 'PermitDetails'), f('spender', 'address'), f('sigDeadline', 'uint256')];
const PERMIT_BATCH = [f('details', 'PermitDetails[]'), f('spender', 'address'), f('sigDeadline', 'uint256')];
/** Permit2's SignatureTransfer structs; the witness variants add one field of the integrator's own type. */
const TOKEN_PERMISSIONS = [f('token', 'address'), f('amount', 'uint256')];
const PERMIT_TRANSFER_FROM = [
  f('permitted', 'TokenPermissions'),
  f('spender', 'address'),
  f('nonce', 'uint256'),
  f('deadline', 'uint256'),
];
const PERMIT_BATCH_TRANSFER_FROM = [
  f('permitted', 'TokenPermissions[]'),
  f('spender', 'address'),
  f('nonce', 'uint256'),
  f('deadline', 'uint256'),
];

/**
 * The token moves a signature of `typed` authorizes, when its primary type is one of the standard
 * token authorizations, with exactly the standard fields:
 * - EIP-2612 `Permit` and DAI's `Permit` (token: the domain's verifyingContract);
 * - Permit2 (domain name "Permit2"): `PermitSingle`, `PermitBatch`, `PermitTransferFrom`,
 *   `PermitBatchTransferFrom`, `PermitWitnessTransferFrom`, `PermitBatchWitnessTransferFrom`
 *   (token: in the message; spender: the message's spender);
 * - EIP-3009 `TransferWithAuthorization` and `ReceiveWithAuthorization` (token: verifyingContract).
 *
 * `recognised` is false, with no moves, for anything else, or when a value does not fit its type.
 * `chainId` is the domain's chain id, or null when it has none (or none that reads as one).
 *
 * @example
 * tokenMovesOfTypedData({ domain: { name: 'USD Coin', version: '2', chainId: 1, verifyingContract: usdc }, types, primaryType: 'Permit', message })
 * // { recognised: true, chainId: 1, moves: [{ kind: 'permit', token: usdc, counterparty: message.spender, role: 'spender', … }] }
 */
export function tokenMovesOfTypedData(typed: TypedDataInput): TypedDataMoves {
  const domain = isRecord(typed.domain) ? typed.domain : {};
  const chainId = readChainId(own(domain, 'chainId'));
  const moves = recognise(typed, domain);
  return moves === undefined ? { moves: [], recognised: false, chainId } : { moves, recognised: true, chainId };
}

function recognise(typed: TypedDataInput, domain: Record<string, unknown>): TokenMove[] | undefined {
  const { types, primaryType, message } = typed;
  if (!isRecord(types) || !isRecord(message) || typeof primaryType !== 'string') return undefined;
  const verifyingContract = readAddress(own(domain, 'verifyingContract'));
  if (own(domain, 'name') === 'Permit2') return permit2Moves(types, primaryType, message);
  switch (primaryType) {
    case 'Permit': {
      if (verifyingContract === undefined) return undefined;
      if (declares(types, 'Permit', EIP2612_PERMIT, {})) {
        return single(message, EIP2612_PERMIT, (values) => ({
          kind: 'permit',
          token: verifyingContract,
          counterparty: values['spender'] as EvmAddress,
          role: 'spender',
          amount: values['value'] as bigint,
          unlimited: (values['value'] as bigint) >= UNLIMITED_UINT256,
        }));
      }
      if (declares(types, 'Permit', DAI_PERMIT, {})) {
        return single(message, DAI_PERMIT, (values) => ({
          kind: 'dai-permit',
          token: verifyingContract,
          counterparty: values['spender'] as EvmAddress,
          role: 'spender',
          // DAI's permit sets the allowance to all or nothing.
          amount: values['allowed'] === true ? MAX_UINT256 : 0n,
          unlimited: values['allowed'] === true,
        }));
      }
      return undefined;
    }
    case 'TransferWithAuthorization':
    case 'ReceiveWithAuthorization': {
      if (verifyingContract === undefined || !declares(types, primaryType, EIP3009_AUTHORIZATION, {})) return undefined;
      const kind =
        primaryType === 'TransferWithAuthorization' ? 'transferWithAuthorization' : 'receiveWithAuthorization';
      return single(message, EIP3009_AUTHORIZATION, (values) => ({
        kind,
        token: verifyingContract,
        counterparty: values['to'] as EvmAddress,
        role: 'recipient',
        amount: values['value'] as bigint,
        unlimited: false,
      }));
    }
    default:
      return undefined;
  }
}

/** Permit2's six signed structs, each granting (or transferring to) `spender` per token. */
function permit2Moves(types: Types, primaryType: string, message: Record<string, unknown>): TokenMove[] | undefined {
  const grant = (token: unknown, spender: unknown, amount: unknown): TokenMove => ({
    kind: 'permit2',
    token: token as EvmAddress,
    counterparty: spender as EvmAddress,
    role: 'spender',
    amount: amount as bigint,
    unlimited: (amount as bigint) >= UNLIMITED_UINT160,
  });
  const details = { PermitDetails: PERMIT_DETAILS };
  const permissions = { TokenPermissions: TOKEN_PERMISSIONS };
  switch (primaryType) {
    case 'PermitSingle': {
      if (!declares(types, primaryType, PERMIT_SINGLE, details)) return undefined;
      const values = readStruct(message, PERMIT_SINGLE);
      const detail = values && readStruct(values['details'], PERMIT_DETAILS);
      return detail && [grant(detail['token'], values['spender'], detail['amount'])];
    }
    case 'PermitBatch': {
      if (!declares(types, primaryType, PERMIT_BATCH, details)) return undefined;
      const values = readStruct(message, PERMIT_BATCH);
      const batch = values && readList(values['details'], PERMIT_DETAILS);
      return batch?.map((detail) => grant(detail['token'], values?.['spender'], detail['amount']));
    }
    case 'PermitTransferFrom':
    case 'PermitWitnessTransferFrom':
    case 'PermitBatchTransferFrom':
    case 'PermitBatchWitnessTransferFrom': {
      const batch = primaryType.startsWith('PermitBatch');
      const fields = batch ? PERMIT_BATCH_TRANSFER_FROM : PERMIT_TRANSFER_FROM;
      const witness = primaryType.includes('Witness');
      const declared = Object.hasOwn(types, primaryType) ? types[primaryType] : undefined;
      // The witness is one more field of the integrator's own struct, after the standard four.
      const witnessField = witness ? declared?.[fields.length] : undefined;
      if (witness && !witnessField) return undefined;
      if (!declares(types, primaryType, fields, permissions, witnessField)) return undefined;
      const values = readStruct(message, fields);
      if (!values) return undefined;
      const permitted = batch
        ? readList(values['permitted'], TOKEN_PERMISSIONS)
        : [readStruct(values['permitted'], TOKEN_PERMISSIONS)];
      if (!permitted || permitted.some((item) => item === undefined)) return undefined;
      return (permitted as Record<string, unknown>[]).map((item) =>
        grant(item['token'], values['spender'], item['amount']),
      );
    }
    default:
      return undefined;
  }
}

/**
 * Whether `types` declares `primaryType` exactly as `fields`, and every standard struct it uses
 * exactly as `structs` does (names, types, order), with no standard field's own type (address,
 * uint256…) redefined as a struct: viem and ethers hash a declared struct before a primitive of the
 * same name. The witness field (Permit2's `…WitnessTransferFrom`) is the integrator's own type and
 * is not checked. Types nothing refers to are left alone: they are not part of the hash.
 */
function declares(
  types: Types,
  primaryType: string,
  fields: readonly Field[],
  structs: Readonly<Record<string, readonly Field[]>>,
  witness?: Field,
): boolean {
  const expected = witness ? [...fields, witness] : fields;
  if (!sameFields(Object.hasOwn(types, primaryType) ? types[primaryType] : undefined, expected)) return false;
  const used = [...fields, ...Object.values(structs).flat()];
  for (const field of used) {
    const base = field.type.replace(/(\[\d*\])+$/, '');
    if (Object.hasOwn(structs, base)) {
      if (!sameFields(Object.hasOwn(types, base) ? types[base] : undefined, structs[base] ?? [])) return false;
    } else if (Object.hasOwn(types, base)) {
      return false;
    }
  }
  return true;
}

function sameFields(declared: readonly Field[] | undefined, expected: readonly Field[]): boolean {
  return (
    Array.isArray(declared) &&
    declared.length === expected.length &&
    expected.every((field, index) => declared[index]?.name === field.name && declared[index]?.type === field.type)
  );
}

/** One move from a message with `fields`, or undefined when a value does not fit its type. */
function single(
  message: unknown,
  fields: readonly Field[],
  move: (values: Record<string, unknown>) => TokenMove,
): TokenMove[] | undefined {
  const values = readStruct(message, fields);
  return values && [move(values)];
}

/** The struct's values, read as their types say (addresses checksummed, integers as bigint). */
function readStruct(value: unknown, fields: readonly Field[]): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  const values: Record<string, unknown> = {};
  for (const field of fields) {
    const read = readValue(own(value, field.name), field.type);
    if (read === undefined) return undefined;
    values[field.name] = read;
  }
  return values;
}

function readList(value: unknown, fields: readonly Field[]): Record<string, unknown>[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const items = value.map((item) => readStruct(item, fields));
  return items.every((item) => item !== undefined) ? (items as Record<string, unknown>[]) : undefined;
}

const UINT = /^uint(\d+)$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;

/** A value of a standard field's type, or undefined when it does not fit (struct fields are read by their own shape). */
function readValue(value: unknown, type: string): unknown {
  const uint = UINT.exec(type);
  if (uint) {
    const integer = readUint(value);
    return integer !== undefined && integer < 1n << BigInt(uint[1] ?? '256') ? integer : undefined;
  }
  switch (type) {
    case 'address':
      return readAddress(value);
    case 'bool':
      return typeof value === 'boolean' ? value : undefined;
    case 'bytes32':
      return typeof value === 'string' && BYTES32.test(value) ? value : undefined;
    default:
      // A struct or an array of structs: its own reader checks it.
      return value;
  }
}

/** Integer text as the signer reads it: a safe number, a bigint, decimal or 0x hex text; never negative. */
function readUint(value: unknown): bigint | undefined {
  if (typeof value === 'bigint') return value >= 0n ? value : undefined;
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? BigInt(value) : undefined;
  if (typeof value !== 'string') return undefined;
  const text = value.trim().replace(/^\+/, '');
  return /^(\d+|0[xX][0-9a-fA-F]+)$/.test(text) ? BigInt(text) : undefined;
}

function readAddress(value: unknown): EvmAddress | undefined {
  return typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value) ? getAddress(value) : undefined;
}

/** The domain's chain id as wallets send it (number, bigint, decimal or 0x text); null when absent or unreadable. */
function readChainId(value: unknown): number | null {
  const integer = readUint(value);
  return integer !== undefined && integer <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(integer) : null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function own(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

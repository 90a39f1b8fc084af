import {
  BaseError,
  hashTypedData,
  isHex,
  recoverMessageAddress,
  validateTypedData,
  type Hex,
  type TypedDataDefinition,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { shownText, shownValue } from '../../shared/text.js';
import { WalletError } from '../errors.js';
import { needsHuman, type Authority } from '../policy/authority.js';
import { checkBeforeSigning, reserveSpend } from '../policy/spending-policy.js';
import { tokenMovesOfTypedData, type TypedDataInput } from './token-moves.js';
import type { WalletServices } from '../services.js';
import { resolveAccount, resolveCounterparty } from './accounts.js';
import { withAccountKey } from './keys.js';
import type { EvmAddress } from './address.js';
import { checkChainId, evmNetwork } from './network.js';

/** Signs a text as EIP-191 `personal_sign` does: "\x19Ethereum Signed Message:\n" + length + message. */
export async function signMessage(
  services: WalletServices,
  request: { from: string; message: string },
): Promise<{ address: EvmAddress; signature: Hex }> {
  const account = await resolveAccount(services, request.from);
  const signature = await withAccountKey(services, account, (privateKey) =>
    privateKeyToAccount(privateKey).signMessage({ message: request.message }),
  );
  return { address: account.address, signature };
}

/** Whether `address` signed `message` (EIP-191); a malformed signature is `INVALID_PARAM`. */
export async function verifyMessage(
  services: WalletServices,
  request: {
    address: string;
    message: string;
    signature: string;
  },
): Promise<boolean> {
  const address = await resolveCounterparty(services, request.address, 'address');
  const signature = request.signature.trim();
  if (!isHex(signature) || signature.length !== 132) {
    throw new WalletError('INVALID_PARAM', 'signature must be 65 bytes in hex: 0x and 130 hex digits.');
  }
  try {
    const signer = await recoverMessageAddress({ message: request.message, signature });
    return signer === address;
  } catch {
    return false;
  }
}

export type TypedData = {
  domain: Record<string, unknown>;
  types: Record<string, ReadonlyArray<{ name: string; type: string }>>;
  primaryType: string;
  message: Record<string, unknown>;
};

/**
 * Signs EIP-712 typed data. Such a signature can authorize spending (an ERC-20 permit), so a
 * domain that names a chain must name the network's.
 */
export async function signTypedData(
  services: WalletServices,
  request: { from: string; network: string; typedData: TypedData; authority: Authority },
): Promise<{ address: EvmAddress; signature: Hex; hash: Hex }> {
  const network = await evmNetwork(services, request.network);
  const chainId = domainChainId(request.typedData.domain['chainId']);
  if (chainId !== undefined) checkChainId(chainId, network, 'The typed data');
  const definition = checkTypedData({
    ...request.typedData,
    domain: { ...request.typedData.domain, ...(chainId === undefined ? {} : { chainId }) },
  });
  refuseHiddenDomainFields(request.typedData);
  // A permit or transfer authorization moves tokens as surely as a transaction: the policy counts
  // it (allowlist, token caps, unlimited approvals, the agent's autonomy). Anything else, or a
  // domain bound to no chain, the policy cannot bound: an agent needs a human yes for it.
  const { moves, recognised } = tokenMovesOfTypedData(definition as unknown as TypedDataInput);
  // An account the keystore does not hold ends the call before anyone is asked to approve it.
  const account = await resolveAccount(services, request.from);
  if (request.authority === 'agent' && (!recognised || chainId === undefined)) {
    throw needsHuman(
      recognised
        ? 'a permit whose domain names no chainId could be replayed on any chain'
        : 'typed data that is not a token permit the wallet recognises cannot be bounded by the policy',
    );
  }
  const hash = hashTypedData(definition);
  const sign = (privateKey: Hex) => privateKeyToAccount(privateKey).signTypedData(definition);
  if (!recognised) {
    return { address: account.address, signature: await withAccountKey(services, account, sign), hash };
  }
  const spend = {
    amount: 0n,
    recipients: [],
    tokens: moves,
    authority: request.authority,
    key: `${account.address}:${hash}`,
  };
  await checkBeforeSigning(services.ledgers, network.policy, spend);
  const { value: signature } = await withAccountKey(services, account, (privateKey) =>
    reserveSpend(services.ledgers, network.policy, spend, async () => ({ value: await sign(privateKey), txid: hash })),
  );
  return { address: account.address, signature, hash };
}

/**
 * Refuses an `EIP712Domain` type that leaves out a field the domain object carries (or names one
 * it lacks): the signature would hash a domain other than the one read here, e.g. without the
 * chainId the network check and the permit's classification rely on.
 */
function refuseHiddenDomainFields(typedData: TypedData): void {
  const declared = typedData.types['EIP712Domain'];
  if (!declared) return;
  const hashed = declared.map((field) => field.name).sort();
  const present = Object.keys(typedData.domain).sort();
  if (hashed.length !== present.length || hashed.some((name, i) => name !== present[i])) {
    throw new WalletError(
      'INVALID_PARAM',
      'typed_data.types.EIP712Domain must list exactly the fields of typed_data.domain: the signature hashes only the listed ones.',
      { hint: 'Leave EIP712Domain out of types (it is derived from the domain), or list every domain field in it.' },
    );
  }
}

/**
 * The domain's chainId as a number: wallets receive it as a number, a decimal string or hex.
 * It must become a number before signing: viem leaves a string chainId out of the domain hash.
 */
function domainChainId(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  if (/^(0|[1-9][0-9]{0,15})$/.test(text) || /^0x[0-9a-fA-F]{1,13}$/.test(text)) {
    const chainId = Number(text);
    if (Number.isSafeInteger(chainId)) return chainId;
  }
  throw new WalletError(
    'INVALID_PARAM',
    'typed_data.domain.chainId must be a chain id: a whole number, decimal or 0x hex.',
  );
}

function checkTypedData(typedData: TypedData): TypedDataDefinition {
  const definition = typedData as unknown as TypedDataDefinition;
  // viem coerces what does not fit (BigInt([]) is 0, a number stands in for a string): a strict
  // encoder such as ethers refuses those values, and so do we, naming the first one.
  const misfit =
    domainProblem(typedData.types, typedData.domain) ??
    valueProblem(typedData.types, typedData.primaryType, typedData.message, 'message');
  if (misfit) throw new WalletError('INVALID_PARAM', `typed_data is not valid EIP-712: ${misfit}.`);
  try {
    validateTypedData(definition);
    hashTypedData(definition);
  } catch (error) {
    const reason = error instanceof BaseError ? withoutLongQuotes(error.shortMessage) : 'it does not match its types';
    throw new WalletError('INVALID_PARAM', `typed_data is not valid EIP-712: ${reason.split('\n')[0] ?? ''}`, {
      cause: error,
    });
  }
  return definition;
}

const ARRAY_TYPE = /^(.+)\[(\d*)\]$/;
const INTEGER_TYPE = /^(u?)int(\d*)$/;
const BYTES_TYPE = /^bytes(\d*)$/;
/** Integer text as ethers and viem both read it: decimal (leading zeros too) or 0x hex, signed. */
const INTEGER_TEXT = /^([+-]?)(\d+|0[xX][0-9a-fA-F]+)$/;
const HEX_BYTES = /^0x(?:[0-9a-fA-F]{2})*$/;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** The fields EIP-712 allows in a domain, with their types. */
const DOMAIN_FIELDS: Readonly<Record<string, string>> = {
  name: 'string',
  version: 'string',
  chainId: 'uint256',
  verifyingContract: 'address',
  salt: 'bytes32',
};

/**
 * viem's message with what it quotes from the document (a type or field name, between " or `)
 * shown only when short: a name may be a key pasted into the wrong place.
 */
function withoutLongQuotes(message: string): string {
  return message.replace(
    /(["`])([^"`]*)\1/g,
    (_quoted, mark: string, inner: string) => `${mark}${shownText(inner)}${mark}`,
  );
}

/**
 * What is wrong with the domain: a key EIP-712 does not define (a strict encoder refuses it, viem
 * leaves it out of the hash), a value that does not fit its type, or an EIP712Domain type that
 * declares something else.
 */
function domainProblem(types: TypedData['types'], domain: Record<string, unknown>): string | undefined {
  for (const [key, value] of Object.entries(domain)) {
    const type = Object.hasOwn(DOMAIN_FIELDS, key) ? DOMAIN_FIELDS[key] : undefined;
    if (type === undefined) return `domain.${shownValue(key)} is not an EIP-712 domain field`;
    const problem = valueProblem(types, type, value, `domain.${key}`);
    if (problem) return problem;
  }
  const declared = Object.hasOwn(types, 'EIP712Domain') ? types['EIP712Domain'] : undefined;
  for (const field of declared ?? []) {
    if (DOMAIN_FIELDS[field.name] !== field.type) {
      return `types.EIP712Domain declares ${shownValue(field.name)} as ${shownValue(field.type)}, not an EIP-712 domain field`;
    }
  }
  return undefined;
}

/**
 * What is wrong with the first value (at any depth) that does not fit its EIP-712 type, as
 * "<path> must be …", or undefined when every value fits. Types it does not know are left to viem.
 */
function valueProblem(types: TypedData['types'], type: string, value: unknown, path: string): string | undefined {
  const array = ARRAY_TYPE.exec(type);
  if (array) {
    const [, itemType = '', size = ''] = array;
    if (!Array.isArray(value)) return `${path} must be an array (${shownText(type)})`;
    if (size !== '' && value.length !== Number(size))
      return `${path} must hold exactly ${size} items (${shownText(type)})`;
    for (const [index, item] of value.entries()) {
      const problem = valueProblem(types, itemType, item, `${path}[${index}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  const integer = INTEGER_TYPE.exec(type);
  if (integer) {
    const digits = integer[2] || '256';
    const bits = Number(digits);
    if (String(bits) !== digits || bits % 8 !== 0 || bits < 8 || bits > 256) {
      return `${path}: ${shownValue(type)} is not an EIP-712 type (int and uint take 8 to 256 bits, in steps of 8)`;
    }
    return integerProblem(value, integer[1] === 'u', bits, path, type);
  }
  const bytes = BYTES_TYPE.exec(type);
  if (bytes) {
    const digits = bytes[1] ?? '';
    const size = digits === '' ? undefined : Number(digits);
    if (size !== undefined && (String(size) !== digits || size < 1 || size > 32)) {
      return `${path}: ${shownValue(type)} is not an EIP-712 type (bytes1 to bytes32, or bytes)`;
    }
    const fits =
      typeof value === 'string' && HEX_BYTES.test(value) && (size === undefined || value.length === 2 + 2 * size);
    return fits
      ? undefined
      : `${path} must be ${size === undefined ? '' : `${size} bytes as `}0x hex (${shownText(type)})`;
  }
  switch (type) {
    case 'string':
      return typeof value === 'string' ? undefined : `${path} must be a string`;
    case 'bool':
      return typeof value === 'boolean' ? undefined : `${path} must be true or false (bool)`;
    case 'address':
      return typeof value === 'string' && ADDRESS.test(value) ? undefined : `${path} must be a 0x address (address)`;
  }
  const fields = Object.hasOwn(types, type) ? types[type] : undefined;
  if (!fields) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return `${path} must be an object (${shownText(type)})`;
  for (const field of fields) {
    const fieldValue = Object.hasOwn(value, field.name) ? (value as Record<string, unknown>)[field.name] : undefined;
    const problem = valueProblem(types, field.type, fieldValue, `${path}.${shownText(field.name)}`);
    if (problem) return problem;
  }
  return undefined;
}

/** Whether `value` is an integer (number, bigint, decimal or 0x text) within the type's range. */
function integerProblem(
  value: unknown,
  unsigned: boolean,
  bits: number,
  path: string,
  type: string,
): string | undefined {
  let integer: bigint | undefined;
  if (typeof value === 'bigint') integer = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) integer = BigInt(value);
  else if (typeof value === 'string') {
    const text = INTEGER_TEXT.exec(value.trim());
    if (text) integer = (text[1] === '-' ? -1n : 1n) * BigInt(text[2] ?? '0');
  }
  if (integer === undefined) return `${path} must be an integer (${shownText(type)})`;
  const min = unsigned ? 0n : -(1n << BigInt(bits - 1));
  const max = unsigned ? (1n << BigInt(bits)) - 1n : (1n << BigInt(bits - 1)) - 1n;
  return integer < min || integer > max ? `${path} is out of range for ${shownText(type)}` : undefined;
}

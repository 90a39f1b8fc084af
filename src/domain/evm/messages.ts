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
import { WalletError } from '../errors.js';
import type { WalletServices } from '../services.js';
import { resolveAccount, withAccountKey } from './accounts.js';
import { parseEvmAddress, type EvmAddress } from './address.js';
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
export async function verifyMessage(request: {
  address: string;
  message: string;
  signature: string;
}): Promise<boolean> {
  const address = parseEvmAddress(request.address, 'address');
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
  request: { from: string; network: string; typedData: TypedData },
): Promise<{ address: EvmAddress; signature: Hex; hash: Hex }> {
  const network = await evmNetwork(services, request.network);
  const chainId = domainChainId(request.typedData.domain['chainId']);
  if (chainId !== undefined) checkChainId(chainId, network, 'The typed data');
  const definition = checkTypedData({
    ...request.typedData,
    domain: { ...request.typedData.domain, ...(chainId === undefined ? {} : { chainId }) },
  });
  const account = await resolveAccount(services, request.from);
  const signature = await withAccountKey(services, account, (privateKey) =>
    privateKeyToAccount(privateKey).signTypedData(definition),
  );
  return { address: account.address, signature, hash: hashTypedData(definition) };
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
  // viem turns any value into an integer with BigInt() (`[]` and `''` become 0): refuse what is not one.
  const notInteger = integerProblem(typedData.types, typedData.primaryType, typedData.message, 'message');
  if (notInteger) {
    throw new WalletError('INVALID_PARAM', `typed_data is not valid EIP-712: ${notInteger} is not an integer.`);
  }
  try {
    validateTypedData(definition);
    hashTypedData(definition);
  } catch (error) {
    const reason = error instanceof BaseError ? error.shortMessage : 'it does not match its types';
    throw new WalletError('INVALID_PARAM', `typed_data is not valid EIP-712: ${reason.split('\n')[0] ?? ''}`, {
      cause: error,
    });
  }
  return definition;
}

const INTEGER_TYPE = /^u?int(\d{1,3})?$/;
const INTEGER_TEXT = /^-?(0|[1-9]\d*)$|^-?0x[0-9a-fA-F]+$/;

/** The path of the first integer field (at any depth, in arrays too) whose value is no integer. */
function integerProblem(types: TypedData['types'], type: string, value: unknown, path: string): string | undefined {
  const array = /^(.*)\[\d*\]$/.exec(type);
  if (array) {
    if (!Array.isArray(value)) return undefined; // viem's own validation names the wrong shape
    for (const [index, item] of value.entries()) {
      const problem = integerProblem(types, array[1] ?? '', item, `${path}[${index}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (INTEGER_TYPE.test(type)) {
    const fits =
      typeof value === 'bigint' ||
      (typeof value === 'number' && Number.isSafeInteger(value)) ||
      (typeof value === 'string' && INTEGER_TEXT.test(value));
    return fits ? undefined : path;
  }
  const fields = types[type];
  if (!fields || typeof value !== 'object' || value === null) return undefined;
  for (const field of fields) {
    const problem = integerProblem(
      types,
      field.type,
      (value as Record<string, unknown>)[field.name],
      `${path}.${field.name}`,
    );
    if (problem) return problem;
  }
  return undefined;
}

import type { Hex } from 'viem';
import { WalletError } from '../errors.js';
import { sealImportedKey, type ImportedKeyEntry } from '../keystore/imported-keys.js';
import { shownName } from '../keystore/keystore-format.js';
import type { WalletEntry } from '../keystore/wallet-record.js';
import type { WalletServices } from '../services.js';
import { looksLikeEvmAddress, parseEvmAddress, type EvmAddress } from './address.js';
import { evmAccountPath } from './paths.js';

// Keystore v3 files (scrypt or PBKDF2, AES) are read and written on import and export only: loaded then.
const keystoreV3 = () => import('./keystore-v3.js');
// What creates, imports and exports keys (the curve, HD derivation, the wallets' seeds): loaded on
// use, as listing and resolving accounts, which every EVM tool does, needs none of it.
const hd = () => import('./hd.js');
const keys = () => import('./keys.js');
const wallets = () => import('../wallet/wallets.js');
const passphrase = () => import('../wallet/passphrase.js');

/** An EVM account of the keystore: derived from a wallet's seed, or an imported key. */
export type EvmAccount = {
  address: EvmAddress;
  alias: string | null;
  source: 'derived' | 'imported';
  /** The wallet whose seed derives it (derived accounts only). */
  wallet: WalletEntry | null;
  index: number | null;
  path: string | null;
  /** The sealed key file (imported accounts only). */
  key: ImportedKeyEntry | null;
};

function derived(wallet: WalletEntry, record: { index: number; address: string; alias: string | null }): EvmAccount {
  return {
    address: record.address as EvmAddress,
    alias: record.alias,
    source: 'derived',
    wallet,
    index: record.index,
    path: evmAccountPath(record.index),
    key: null,
  };
}

function imported(key: ImportedKeyEntry): EvmAccount {
  return {
    address: key.address as EvmAddress,
    alias: key.alias,
    source: 'imported',
    wallet: null,
    index: null,
    path: null,
    key,
  };
}

/** Every EVM account: each wallet's derived ones by index, then imported keys; unreadable files named. */
export async function listAccounts(
  services: WalletServices,
  walletId?: string,
): Promise<{ accounts: EvmAccount[]; unreadable: string[] }> {
  if (walletId !== undefined) {
    const wallet = await services.keystore.resolve(walletId);
    return { accounts: (wallet.evm?.accounts ?? []).map((record) => derived(wallet, record)), unreadable: [] };
  }
  const { entries, unreadable } = await services.keystore.list();
  const { keys, unreadable: unreadableKeys } = await services.keystore.listImportedKeys();
  return {
    accounts: [
      ...entries.flatMap((wallet) => (wallet.evm?.accounts ?? []).map((record) => derived(wallet, record))),
      ...keys.map(imported),
    ],
    unreadable: [...unreadable, ...unreadableKeys],
  };
}

/**
 * The next account of a wallet's seed, m/44'/60'/0'/0/i. The first one unlocks the seed to store
 * the chain xpub; later ones derive from it without a passphrase.
 */
export async function createAccount(
  services: WalletServices,
  request: { walletId: string | undefined; alias: string | null },
): Promise<EvmAccount> {
  const [{ evmAddressAt, evmChainXpub }, { openWallet, unlockMaster }] = await Promise.all([hd(), wallets()]);
  const wallet = await openWallet(services, request.walletId);
  const xpub = wallet.evm?.xpub ?? evmChainXpub(await unlockMaster(services, wallet));
  const { entry, account } = await services.keystore.addEvmAccount(wallet, {
    xpub,
    alias: request.alias,
    addressAt: evmAddressAt,
  });
  return derived(entry, account);
}

export type ImportRequest = {
  privateKey: string | undefined;
  keystoreJson: string | undefined;
  keystorePassword: string | undefined;
  alias: string | null;
};

/** Seals a raw private key or a keystore v3 file into the keystore as a new account. */
export async function importAccount(services: WalletServices, request: ImportRequest): Promise<EvmAccount> {
  const privateKey = await importedPrivateKey(request);
  try {
    const [{ evmAddressOfPrivateKey }, { keystorePassphraseToSeal }] = await Promise.all([hd(), passphrase()]);
    const address = evmAddressOfPrivateKey(privateKey);
    const key = await sealImportedKey({
      address,
      alias: request.alias,
      privateKey,
      passphrase: await keystorePassphraseToSeal(services),
    });
    await services.keystore.addImportedKey(key);
    return imported(key);
  } finally {
    privateKey.fill(0);
  }
}

async function importedPrivateKey(request: ImportRequest): Promise<Uint8Array> {
  if ((request.privateKey === undefined) === (request.keystoreJson === undefined)) {
    throw new WalletError('INVALID_PARAM', 'Give exactly one of private_key and keystore_json.');
  }
  if (request.privateKey !== undefined) return await parsePrivateKey(request.privateKey);
  if (request.keystorePassword === undefined) {
    throw new WalletError('INVALID_PARAM', 'keystore_json needs keystore_password, the password it was saved with.');
  }
  let json: unknown;
  try {
    json = JSON.parse(request.keystoreJson ?? '');
  } catch {
    throw new WalletError('INVALID_PARAM', 'keystore_json is not valid JSON.');
  }
  const { decryptKeystoreV3 } = await keystoreV3();
  return (await decryptKeystoreV3(json, request.keystorePassword)).privateKey;
}

/** A 32-byte secp256k1 private key written in hex (0x optional); never echoed in errors. */
async function parsePrivateKey(text: string): Promise<Uint8Array> {
  const hex = text.trim().replace(/^0x/i, '');
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new WalletError('INVALID_PARAM', 'private_key must be 32 bytes in hex: 64 hex digits, 0x optional.');
  }
  const { secp256k1 } = await import('../secp256k1.js');
  // Decoded into a Buffer from Node's shared pool: copied out and wiped there.
  const decoded = Buffer.from(hex, 'hex');
  const key = Uint8Array.from(decoded);
  decoded.fill(0);
  if (!secp256k1.utils.isValidSecretKey(key)) {
    key.fill(0);
    throw new WalletError(
      'INVALID_PARAM',
      'private_key is not a valid secp256k1 key (zero or beyond the curve order).',
    );
  }
  return key;
}

/**
 * The keystore account named by its address or alias; `WALLET_NOT_FOUND` for any other (an
 * address this keystore has no key for cannot sign).
 */
export async function resolveAccount(services: WalletServices, ref: string): Promise<EvmAccount> {
  const wanted = ref.trim();
  const { accounts, unreadable } = await listAccounts(services);
  const byAddress = looksLikeEvmAddress(wanted)
    ? accounts.find((account) => account.address.toLowerCase() === parseEvmAddress(wanted, 'address').toLowerCase())
    : accounts.find((account) => account.alias === wanted);
  if (byAddress) return byAddress;
  const damaged = unreadable.length > 0 ? ` Unreadable keystore files: ${unreadable.join(', ')}.` : '';
  throw new WalletError('WALLET_NOT_FOUND', `No EVM account ${shownName(wanted)} in the keystore.`, {
    hint: `evm_accounts_list shows the accounts; evm_account_create or evm_account_import adds one.${damaged}`,
  });
}

/** An address to watch: any checksummed or single-case address as written, or the alias of a keystore account. */
export async function resolveAddress(services: WalletServices, ref: string, field: string): Promise<EvmAddress> {
  const wanted = ref.trim();
  if (looksLikeEvmAddress(wanted) || wanted.startsWith('0x')) return parseEvmAddress(wanted, field);
  return (await resolveAccount(services, wanted)).address;
}

/**
 * A counterparty (a recipient, a claimed signer): an address as written, or the alias of a
 * keystore account, which stands for its address. `INVALID_PARAM` naming `field` when it is
 * neither (the value itself is never echoed). A policy's allowlist sees the resolved address.
 *
 * @example
 * await resolveCounterparty(services, 'savings', 'to') // '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
 */
export async function resolveCounterparty(services: WalletServices, ref: string, field: string): Promise<EvmAddress> {
  const wanted = ref.trim();
  if (looksLikeEvmAddress(wanted) || wanted.startsWith('0x')) return parseEvmAddress(wanted, field);
  const { accounts } = await listAccounts(services);
  const account = accounts.find((candidate) => candidate.alias === wanted);
  if (account) return account.address;
  throw new WalletError('INVALID_PARAM', `${field} is neither an EVM address nor the alias of a keystore account.`, {
    hint: `Pass 0x and 40 hex digits, or an alias that evm_accounts_list shows.`,
  });
}

export type ExportFormat = 'private_key' | 'keystore_v3';

/**
 * An account's key for a backup or another wallet: raw hex, or a keystore v3 JSON sealed with
 * `keystorePassword` (the keystore passphrase when none is given).
 */
export async function exportAccount(
  services: WalletServices,
  request: { ref: string; format: ExportFormat; keystorePassword: string | undefined },
): Promise<{ account: EvmAccount; privateKey: Hex | null; keystoreJson: string | null }> {
  const account = await resolveAccount(services, request.ref);
  const { withAccountKey } = await keys();
  return withAccountKey(services, account, async (privateKey) => {
    if (request.format === 'private_key') return { account, privateKey, keystoreJson: null };
    const password = request.keystorePassword ?? (await services.passphrase('unlock'));
    const { encryptKeystoreV3 } = await keystoreV3();
    const keystore = await encryptKeystoreV3(Buffer.from(privateKey.slice(2), 'hex'), password);
    return { account, privateKey: null, keystoreJson: JSON.stringify(keystore) };
  });
}

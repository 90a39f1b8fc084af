import type { HDKey } from '@scure/bip32';
import type { CoreNetwork } from '../config/networks.js';
import { WalletError } from '../errors.js';
import type { WalletEntry } from '../keystore/wallet-record.js';
import { RESTORE } from '../keystore/keystore-format.js';
import type { WalletServices } from '../services.js';
import { accountPath } from '../dash/paths.js';
import { keystorePassphraseToSeal } from './passphrase.js';
import type { MnemonicWordCount } from './seed.js';

/**
 * A wallet's life, for both chains: one seed in the keystore, opened by alias or fingerprint,
 * created, imported, exported, deleted, and its master key unlocked. Seeds and keys (bip39, bip32,
 * the curve) load when a wallet is created, imported or unlocked, not for every call that opens
 * one (docs/PERFORMANCE.md).
 */
const seed = () => import('./seed.js');
const dashHd = () => import('../dash/hd.js');

/** What the tools show of a wallet: never a secret. */
export type WalletSummary = {
  walletId: string;
  alias: string;
  network: CoreNetwork;
  accountPath: string;
  accountXpub: string;
  receiveAddresses: number;
  changeAddresses: number;
  createdAt: string;
};

export function summarize(entry: WalletEntry): WalletSummary {
  return {
    walletId: entry.id,
    alias: entry.alias,
    network: entry.network,
    accountPath: entry.account.path,
    accountXpub: entry.account.xpub,
    receiveAddresses: entry.account.next_receive,
    changeAddresses: entry.account.next_change,
    createdAt: entry.created_at,
  };
}

export async function listWallets(
  services: WalletServices,
): Promise<{ wallets: WalletSummary[]; unreadable: string[] }> {
  const { entries, unreadable } = await services.keystore.list();
  return { wallets: entries.map(summarize), unreadable };
}

/**
 * The wallet named by `walletId`, checked against `network` when one is given. Without a
 * `walletId`: the keystore's only wallet (of `network`, when given), else the config file's
 * `default_wallet`; with several and no default, INVALID_PARAM naming them.
 */
export async function openWallet(
  services: WalletServices,
  walletId: string | undefined,
  network?: CoreNetwork,
): Promise<WalletEntry> {
  const entry = await services.keystore.resolve(walletId ?? (await defaultWalletId(services, network)));
  if (network !== undefined && network !== entry.network) {
    throw new WalletError('NETWORK_MISMATCH', `Wallet '${entry.alias}' is a ${entry.network} wallet, not ${network}.`, {
      hint: `Pass \`network: ${entry.network}\`, or use a ${network} wallet.`,
    });
  }
  return entry;
}

/** The wallet meant when none is named (see {@link openWallet}). */
async function defaultWalletId(services: WalletServices, network?: CoreNetwork): Promise<string> {
  const { entries } = await services.keystore.list();
  const candidates = entries.filter((entry) => network === undefined || entry.network === network);
  const [only] = candidates;
  if (only && candidates.length === 1) return only.alias;
  const configured = await services.defaultWallet();
  if (configured !== undefined) return configured;
  const where = network === undefined ? 'in the keystore' : `on ${network}`;
  if (!only) {
    throw new WalletError('INVALID_PARAM', `wallet_id is needed: there is no wallet ${where}.`, {
      hint: 'Create one with core_wallet_create or core_wallet_import.',
    });
  }
  throw new WalletError(
    'INVALID_PARAM',
    `wallet_id is needed: there are ${candidates.length} wallets ${where} (${candidates.map((entry) => entry.alias).join(', ')}).`,
    { hint: 'Pass wallet_id, or name one as default_wallet in config.json.' },
  );
}

/** Unlocks a wallet's master key and checks it is the key the entry describes. */
export async function unlockMaster(services: WalletServices, entry: WalletEntry): Promise<HDKey> {
  const secret = await services.keystore.unlock(entry, await services.passphrase('unlock'));
  const [{ fingerprintHex, masterKey }, { accountXpub }] = await Promise.all([seed(), dashHd()]);
  const master = await masterKey(secret.mnemonic, secret.mnemonicPassphrase, entry.network);
  if (
    fingerprintHex(master) !== entry.id ||
    accountXpub(master, entry.network, entry.account.index) !== entry.account.xpub
  ) {
    throw new WalletError(
      'KEYSTORE_DAMAGED',
      `Wallet '${entry.alias}': the stored public data does not match its seed; its keystore file was altered.`,
      RESTORE,
    );
  }
  return master;
}

export type NewWalletRequest = { alias: string; network: CoreNetwork; mnemonic: string; mnemonicPassphrase: string };

async function store(services: WalletServices, request: NewWalletRequest): Promise<WalletEntry> {
  const [{ checkMnemonic, fingerprintHex, masterKey }, { accountXpub }] = await Promise.all([seed(), dashHd()]);
  const mnemonic = checkMnemonic(request.mnemonic);
  const master = await masterKey(mnemonic, request.mnemonicPassphrase, request.network);
  const passphrase = await keystorePassphraseToSeal(services);
  return services.keystore.create({
    alias: request.alias,
    network: request.network,
    id: fingerprintHex(master),
    account: { index: 0, path: accountPath(request.network, 0), xpub: accountXpub(master, request.network, 0) },
    secret: { mnemonic, mnemonicPassphrase: request.mnemonicPassphrase },
    passphrase,
  });
}

/** A new wallet from fresh entropy; its mnemonic goes only into the keystore. */
export async function createWallet(
  services: WalletServices,
  request: { alias: string; network: CoreNetwork; words: MnemonicWordCount },
): Promise<WalletEntry> {
  const { newMnemonic } = await seed();
  return store(services, {
    alias: request.alias,
    network: request.network,
    mnemonic: newMnemonic(request.words),
    mnemonicPassphrase: '',
  });
}

export function importWallet(services: WalletServices, request: NewWalletRequest): Promise<WalletEntry> {
  return store(services, request);
}

/** The secret of a wallet, for a local backup: unlocks it first. */
export async function exportWallet(
  services: WalletServices,
  walletId: string | undefined,
): Promise<{ entry: WalletEntry; mnemonic: string; mnemonicPassphrase: string }> {
  const entry = await openWallet(services, walletId);
  const secret = await services.keystore.unlock(entry, await services.passphrase('unlock'));
  return { entry, ...secret };
}

/**
 * Deletes a wallet after three checks: the network the caller names, the fingerprint they
 * confirm, and the passphrase (proof that the caller could have exported it first).
 */
export async function deleteWallet(
  services: WalletServices,
  request: { walletId: string | undefined; network: CoreNetwork; confirmFingerprint: string },
): Promise<WalletEntry> {
  const entry = await walletToDelete(services, request);
  await unlockMaster(services, entry);
  await services.keystore.remove(entry);
  return entry;
}

/**
 * The wallet a deletion names, after the checks that need no passphrase: it exists, on that
 * network, and `confirmFingerprint` is its fingerprint. Deletes nothing.
 */
export async function walletToDelete(
  services: WalletServices,
  request: { walletId: string | undefined; network: CoreNetwork; confirmFingerprint: string },
): Promise<WalletEntry> {
  const entry = await openWallet(services, request.walletId, request.network);
  if (request.confirmFingerprint.trim().toLowerCase() !== entry.id) {
    throw new WalletError(
      'INVALID_PARAM',
      `confirm_fingerprint does not match wallet '${entry.alias}'; nothing was deleted.`,
      {
        hint: "core_wallets_list shows each wallet's fingerprint (wallet_id).",
      },
    );
  }
  return entry;
}

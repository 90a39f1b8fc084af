import type { CoreNetwork } from '../config/networks.js';
import type { WalletEntry } from '../keystore/wallet-record.js';
import type { CoreChainBackend, ProgressReporter, WatchedAddress } from '../net/chain-backend.js';
import { addressScript, decodeAddress } from './address.js';
import { accountPath, addressPath, CHAIN_INDEX, type AddressChain } from './paths.js';
import { watcherOf, type AccountWatcher } from './watcher.js';
import { WalletError } from '../errors.js';
import { GAP_LIMIT } from './params.js';
import type { WalletServices } from '../services.js';
import { openWallet } from '../wallet/wallets.js';

export type WalletAddress = { address: string; path: string; index: number; chain: AddressChain };

export function walletAddress(
  entry: WalletEntry,
  watcher: AccountWatcher,
  chain: AddressChain,
  index: number,
): WalletAddress {
  return {
    address: watcher.address(chain, index),
    path: addressPath(entry.network, entry.account.index, chain, index),
    index,
    chain,
  };
}

/**
 * Every address the wallet has handed out, receive chain first, from the address book (derived
 * once, cached): fit to list and to ask a backend about, not to sign for before
 * {@link confirmOwned}.
 */
export async function issuedAddresses(
  services: WalletServices,
  entry: WalletEntry,
  chains: readonly AddressChain[] = ['receive', 'change'],
): Promise<WalletAddress[]> {
  const derived = await services.addressBook.addresses(entry);
  const prefix = `${accountPath(entry.network, entry.account.index)}/`;
  return chains.flatMap((chain) => {
    const count = chain === 'receive' ? entry.account.next_receive : entry.account.next_change;
    const list = derived[chain];
    const chainPrefix = `${prefix}${CHAIN_INDEX[chain]}/`;
    return Array.from({ length: count }, (_, index) => ({
      address: list[index] ?? '',
      path: `${chainPrefix}${index}`,
      index,
      chain,
    }));
  });
}

/** The issued address `address`, found in the address book (not yet confirmed), or undefined. */
export async function findIssued(
  services: WalletServices,
  entry: WalletEntry,
  address: string,
): Promise<WalletAddress | undefined> {
  const derived = await services.addressBook.addresses(entry);
  for (const chain of ['receive', 'change'] as const) {
    const count = chain === 'receive' ? entry.account.next_receive : entry.account.next_change;
    const index = derived[chain].indexOf(address);
    if (index !== -1 && index < count) {
      return { address, path: addressPath(entry.network, entry.account.index, chain, index), index, chain };
    }
  }
  return undefined;
}

/**
 * Derives a cached address again from the xpub before it is signed for or counted as the
 * wallet's own; a mismatch (an altered cache) is refused, and the cache dropped.
 */
export async function confirmOwned(services: WalletServices, entry: WalletEntry, owned: WalletAddress): Promise<void> {
  if (await services.addressBook.confirm(entry, owned.chain, owned.index, owned.address)) return;
  throw new WalletError(
    'INTERNAL',
    `The address cache of wallet '${entry.alias}' did not match its xpub; nothing was signed.`,
    { hint: 'The damaged cache was removed: repeat the call.' },
  );
}

/** Output scripts of addresses seen, by address: decoding Base58Check costs ~40 µs each. */
const scripts = new Map<string, Uint8Array>();

export function watched(addresses: readonly WalletAddress[]): WatchedAddress[] {
  return addresses.map((a) => {
    let script = scripts.get(a.address);
    if (!script) {
      const decoded = decodeAddress(a.address);
      if (!decoded) throw new Error('derived an undecodable address');
      script = addressScript(decoded);
      scripts.set(a.address, script);
    }
    return { address: a.address, script };
  });
}

/** The next receive address; its index is recorded before it is returned, so it is never reused. */
export async function createAddress(
  services: WalletServices,
  walletId: string | undefined,
  network?: CoreNetwork,
): Promise<WalletAddress & { entry: WalletEntry }> {
  const entry = await openWallet(services, walletId, network);
  const { entry: updated, first } = await services.keystore.reserve(entry, 'receive');
  return { ...walletAddress(updated, watcherOf(updated, services.dataDir), 'receive', first), entry: updated };
}

export type DiscoveryResult = {
  entry: WalletEntry;
  receiveUsed: number;
  changeUsed: number;
  scanned: number;
  historyKind: 'history' | 'unspent-only';
};

/**
 * BIP44 account discovery: walks each chain in windows of {@link GAP_LIMIT} addresses until a whole
 * window past the last used address is unused, then raises the wallet's next indexes past every
 * used one (never lowering them).
 */
export async function discoverAddresses(
  services: WalletServices,
  entry: WalletEntry,
  backend: CoreChainBackend,
  options: { progress?: ProgressReporter | undefined; signal?: AbortSignal | undefined } = {},
): Promise<DiscoveryResult> {
  // The backends' module (with core-rpc's and Insight's) loads only for a scan, not for every address.
  const { checkBackendNetwork } = await import('../net/backends.js');
  await checkBackendNetwork(backend, entry.network);
  const watcher = watcherOf(entry, services.dataDir);
  const next = { receive: 0, change: 0 };
  let scanned = 0;
  for (const chain of ['receive', 'change'] as const) {
    let lastUsed = -1;
    for (let start = 0; start < lastUsed + 1 + GAP_LIMIT; start += GAP_LIMIT) {
      options.signal?.throwIfAborted();
      const window = Array.from({ length: GAP_LIMIT }, (_, i) => walletAddress(entry, watcher, chain, start + i));
      options.progress?.(scanned, undefined, `scanning ${chain} addresses ${start}-${start + GAP_LIMIT - 1}`);
      const used = await backend.used(watched(window), options.signal);
      scanned += window.length;
      for (const address of window) if (used.has(address.address)) lastUsed = Math.max(lastUsed, address.index);
    }
    next[chain] = lastUsed + 1;
  }
  options.progress?.(scanned, scanned, 'discovery done');
  const updated = await services.keystore.advance(entry, next);
  return {
    entry: updated,
    receiveUsed: next.receive,
    changeUsed: next.change,
    scanned,
    historyKind: await backend.historyKind(),
  };
}

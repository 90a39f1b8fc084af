import { CORE_NETWORKS, type CoreNetwork } from '../config/networks.js';
import { WalletError } from '../errors.js';
import { ALIAS_PATTERN } from '../keystore/keystore-format.js';
import type { WalletEntry } from '../keystore/wallet-record.js';
import { checkBackendNetwork } from '../net/backends.js';
import type { AddressBalance, CoreChainBackend } from '../net/chain-backend.js';
import type { WalletServices } from '../services.js';
import { addressScript, decodeAddress, requireAddress } from './address.js';
import { issuedAddresses, watched, type WalletAddress } from './addresses.js';
import { backendFor } from './network.js';
import { isSpendable, type Utxo } from './transaction.js';
import { openWallet } from '../wallet/wallets.js';

export type AddressBalances = {
  confirmed: bigint;
  unconfirmed: bigint;
  addresses: Array<WalletAddress & { confirmed: bigint; unconfirmed: bigint }>;
  backend: CoreChainBackend;
};

export async function walletBalances(
  services: WalletServices,
  walletId: string | undefined,
  network: CoreNetwork | undefined,
  signal?: AbortSignal,
): Promise<AddressBalances & { entry: WalletEntry }> {
  const entry = await openWallet(services, walletId, network);
  const backend = await backendFor(services, entry.network);
  await checkBackendNetwork(backend, entry.network);
  const addresses = await issuedAddresses(services, entry);
  const balances = await backend.balances(watched(addresses), signal);
  let confirmed = 0n;
  let unconfirmed = 0n;
  const rows = addresses.map((address) => {
    const balance = balances.get(address.address) ?? { confirmed: 0n, unconfirmed: 0n };
    confirmed += balance.confirmed;
    unconfirmed += balance.unconfirmed;
    return { ...address, ...balance };
  });
  return { entry, confirmed, unconfirmed, addresses: rows, backend };
}

/**
 * The balance of any Dash address, in a wallet or not, as the network's backend sees it: a
 * core-rpc node's address index (`getaddressbalance`, `getaddressmempool`) or, without the index,
 * `scantxoutset` over the address's script (confirmed coins only: unconfirmed is then 0); an
 * Insight explorer's address summary. Without `network`: the default Dash network when the
 * address is one of its, else the network its prefix names (mainnet for X/7, testnet for y/8).
 */
export async function addressBalance(
  services: WalletServices,
  address: string,
  network: CoreNetwork | undefined,
  signal?: AbortSignal,
): Promise<AddressBalance & { address: string; network: CoreNetwork; backend: CoreChainBackend }> {
  const text = address.trim();
  if (!decodeAddress(text) && ALIAS_PATTERN.test(text)) {
    throw new WalletError('INVALID_PARAM', 'address is not a valid Dash address.', {
      hint: "A wallet's balance: pass its alias as `wallet_id` instead.",
    });
  }
  const chosen = network ?? (await networkOfAddress(services, text));
  const decoded = requireAddress(text, chosen);
  const backend = await backendFor(services, chosen);
  await checkBackendNetwork(backend, chosen);
  const balances = await backend.balances([{ address: text, script: addressScript(decoded) }], signal);
  const balance = balances.get(text) ?? { confirmed: 0n, unconfirmed: 0n };
  return { address: text, network: chosen, backend, confirmed: balance.confirmed, unconfirmed: balance.unconfirmed };
}

async function networkOfAddress(services: WalletServices, address: string): Promise<CoreNetwork> {
  const configured = (await services.network('core', undefined)).network;
  const fallback = CORE_NETWORKS.find((network) => network === configured) ?? 'mainnet';
  const networks = decodeAddress(address)?.networks ?? [];
  return networks.includes(fallback) ? fallback : (networks[0] ?? fallback);
}

export type WalletUtxo = Utxo & { spendable: boolean; path: string };

export async function walletUtxos(
  services: WalletServices,
  walletId: string | undefined,
  network: CoreNetwork | undefined,
  signal?: AbortSignal,
): Promise<{ entry: WalletEntry; utxos: WalletUtxo[]; tip: number }> {
  const entry = await openWallet(services, walletId, network);
  const backend = await backendFor(services, entry.network);
  const tip = await checkBackendNetwork(backend, entry.network);
  const addresses = await issuedAddresses(services, entry);
  const paths = new Map(addresses.map((a) => [a.address, a.path]));
  const utxos = await backend.utxos(watched(addresses), signal);
  return {
    entry,
    tip,
    utxos: utxos.map((utxo) => ({ ...utxo, spendable: isSpendable(utxo, tip), path: paths.get(utxo.address) ?? '' })),
  };
}

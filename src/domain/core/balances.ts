import type { CoreNetwork } from '../config/networks.js';
import type { WalletEntry } from '../keystore/keystore.js';
import { checkBackendNetwork } from '../net/backends.js';
import type { CoreChainBackend } from '../net/chain-backend.js';
import type { WalletServices } from '../services.js';
import { issuedAddresses, watched, type WalletAddress } from './addresses.js';
import { backendFor } from './network.js';
import { isSpendable, type Utxo } from './transaction.js';
import { openWallet } from './wallets.js';

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

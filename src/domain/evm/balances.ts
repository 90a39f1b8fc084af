import type { WalletServices } from '../services.js';
import { resolveAddress } from './accounts.js';
import { parseEvmAddress, type EvmAddress } from './address.js';
import { connectEvm } from './network.js';

export type EvmBalance = {
  address: EvmAddress;
  network: string;
  wei: bigint;
  token: { address: EvmAddress; symbol: string | null; decimals: number; balance: bigint } | null;
};

/** The native balance of any address (or keystore alias), and an ERC-20 balance when `token` is given. */
export async function getBalance(
  services: WalletServices,
  request: { address: string; network: string | undefined; token: string | undefined },
  signal?: AbortSignal,
): Promise<EvmBalance> {
  const address = await resolveAddress(services, request.address, 'address');
  const token = request.token === undefined ? undefined : parseEvmAddress(request.token, 'token');
  const node = await connectEvm(services, request.network, signal);
  const [wei, tokenInfo] = await Promise.all([node.balance(address), token ? node.token(token, address) : undefined]);
  return {
    address,
    network: node.network.network,
    wei,
    token: token && tokenInfo ? { address: token, ...tokenInfo } : null,
  };
}

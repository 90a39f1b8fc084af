import type { ResolvedNetwork } from '../config/endpoints.js';
import { WalletError } from '../errors.js';
import { hintingBackend, withEndpointHint } from '../net/endpoint-hint.js';
import { EvmNode } from '../net/evm-rpc.js';
import type { WalletServices } from '../services.js';

/** A configured EVM network, resolved, with its chain id. */
export type EvmNetwork = ResolvedNetwork & { chainId: number };

/** A configured EVM network with its chain id (the default one when `name` is undefined). */
export async function evmNetwork(services: WalletServices, name: string | undefined): Promise<EvmNetwork> {
  const settings = await services.network('evm', name);
  if (settings.chainId === null) {
    throw new WalletError('INVALID_PARAM', `The EVM network '${settings.network}' has no chain id configured.`);
  }
  return { ...settings, chainId: settings.chainId };
}

/**
 * The node of an EVM network, checked to serve that network's chain id; its `BACKEND_UNAVAILABLE`
 * hints say how to set that network's endpoint.
 */
export async function connectEvm(
  services: WalletServices,
  name: string | undefined,
  signal?: AbortSignal,
): Promise<EvmNode> {
  return connectNode(await evmNetwork(services, name), signal);
}

/** {@link connectEvm} for a network its caller has resolved already. */
export async function connectNode(network: EvmNetwork, signal?: AbortSignal): Promise<EvmNode> {
  const node = await EvmNode.connect(network, signal).catch((error: unknown) => {
    throw withEndpointHint(error, 'evm', network.network);
  });
  return hintingBackend(node, 'evm', network.network);
}

/** Refuses a chain id that is not the network's: a transaction or signature for another chain. */
export function checkChainId(
  chainId: number | undefined,
  network: { network: string; chainId: number },
  what: string,
): void {
  if (chainId !== network.chainId) {
    throw new WalletError(
      'NETWORK_MISMATCH',
      `${what} is for chain id ${chainId ?? 'none'}, not ${network.chainId} (${network.network}); nothing was signed or sent.`,
      { hint: `Create it for ${network.network}, or pass the network it was made for.` },
    );
  }
}

import { noEndpointError, type ResolvedNetwork } from '../config/endpoints.js';
import { WalletError } from '../errors.js';
import type { CoreChainBackend } from './chain-backend.js';
import { CoreRpcBackend } from './core-rpc.js';
import { hintingBackend } from './endpoint-hint.js';
import { InsightBackend } from './insight.js';
import type { CoreNetwork } from '../config/networks.js';

/**
 * The backend that serves a configured Dash network, of the kind its settings name; its
 * `BACKEND_UNAVAILABLE` hints say how to set that network's endpoint.
 */
export function coreBackendFor(settings: ResolvedNetwork): CoreChainBackend {
  if (settings.url === null) {
    throw noEndpointError('core', settings.network);
  }
  const backend =
    settings.backend === 'insight'
      ? new InsightBackend(settings.url)
      : new CoreRpcBackend(settings.url, settings.network as CoreNetwork, settings.cookieFile);
  return hintingBackend<CoreChainBackend>(backend, 'core', settings.network);
}

/** The backend's tip height, after checking it serves `network` (a wrong node is refused). */
export async function checkBackendNetwork(backend: CoreChainBackend, network: CoreNetwork): Promise<number> {
  const info = await backend.chainInfo();
  if (info.network !== network) {
    throw new WalletError(
      'NETWORK_MISMATCH',
      `The ${backend.kind} endpoint ${backend.endpoint} serves ${info.network}, not ${network}.`,
      {
        hint: `Point core.${network} at a ${network} node (network_info shows the endpoints).`,
      },
    );
  }
  return info.height;
}

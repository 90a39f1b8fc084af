import type { ResolvedNetwork } from '../config/endpoints.js';
import { WalletError } from '../errors.js';
import type { CoreChainBackend } from './chain-backend.js';
import { CoreRpcBackend } from './core-rpc.js';
import { InsightBackend } from './insight.js';
import type { CoreNetwork } from '../config/networks.js';

/** The backend that serves a configured Dash network, of the kind its settings name. */
export function coreBackendFor(settings: ResolvedNetwork): CoreChainBackend {
  if (settings.url === null) {
    throw new WalletError('BACKEND_UNAVAILABLE', `No endpoint is configured for core.${settings.network}.`, {
      hint: `Set it in the config file, WALLET_CORE_${settings.network.toUpperCase()}_URL or --endpoint core.${settings.network}=<url>.`,
    });
  }
  if (settings.backend === 'insight') return new InsightBackend(settings.url);
  return new CoreRpcBackend(settings.url, settings.network as CoreNetwork, settings.cookieFile);
}

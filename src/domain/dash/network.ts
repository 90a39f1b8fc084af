import type { CoreNetwork } from '../config/networks.js';
import { coreBackendFor } from '../net/backends.js';
import type { CoreChainBackend } from '../net/chain-backend.js';
import type { SpendingPolicy } from '../policy/spending-policy.js';
import type { WalletServices } from '../services.js';

/** The backend a Dash network's settings name: a core-rpc node or an Insight explorer. */
export async function backendFor(services: WalletServices, network: CoreNetwork): Promise<CoreChainBackend> {
  return coreBackendFor(await services.network('core', network));
}

/** The spending policy the config file sets for a Dash network, or null. */
export async function policyOf(services: WalletServices, network: CoreNetwork): Promise<SpendingPolicy | null> {
  return (await services.network('core', network)).policy;
}

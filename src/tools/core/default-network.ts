import type { z } from 'zod';
import type { WalletServices } from '../../domain/services.js';
import { CoreNetwork, type OptionalCoreNetwork } from '../fields.js';

/** The network a new wallet gets: the one given, else the configured Dash default. */
export async function defaultNetwork(network: z.infer<typeof OptionalCoreNetwork>, services: WalletServices) {
  return network ?? CoreNetwork.parse((await services.network('core', undefined)).network);
}

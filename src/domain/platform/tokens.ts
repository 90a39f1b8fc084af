/**
 * Platform token balances of one identity, proved by the SDK: a token without a balance entry is
 * proved to hold none (null), never guessed.
 */
import type { PlatformNetwork } from './network.js';
import { platformRead } from './sdk.js';

export type TokenBalance = { tokenId: string; balance: bigint | null };

/** An identity's balances of the tokens asked (base58 ids), in the order asked. */
export async function fetchTokenBalances(
  network: PlatformNetwork,
  identityId: string,
  tokenIds: readonly string[],
): Promise<TokenBalance[]> {
  return platformRead(network, `the token balances of identity ${identityId}`, async (sdk) => {
    const balances = await sdk.identities.tokenBalances(identityId, [...tokenIds]);
    return tokenIds.map((tokenId) => ({ tokenId, balance: balances.get(tokenId) ?? null }));
  });
}

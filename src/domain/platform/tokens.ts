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

/** What a token's information may include; each is one more proved request. */
export type TokenFacet = 'supply' | 'status' | 'price';

/** A token's direct-purchase price: its base price and the one now charged, in credits. */
type TokenPrice = { basePriceCredits: string; currentPriceCredits: string };

/**
 * A token's information, of the facets asked only (a facet not asked is undefined): its total
 * supply in base units, whether it is paused, its direct-purchase price; null where Platform
 * proves there is none (no supply entry, no status, no price set).
 */
export type TokenInfo = {
  tokenId: string;
  totalSupply?: bigint | null;
  paused?: boolean | null;
  price?: TokenPrice | null;
};

/**
 * The facets asked of each token (base58 ids), in the order asked: statuses and prices in one
 * request each for all the tokens, the total supply one request per token (Platform has no
 * request for several).
 */
export async function fetchTokenInfos(
  network: PlatformNetwork,
  tokenIds: readonly string[],
  facets: ReadonlySet<TokenFacet>,
): Promise<TokenInfo[]> {
  const what = `token ${tokenIds.length === 1 ? tokenIds[0] : `information of ${tokenIds.length} tokens`}`;
  return platformRead(network, what, async (sdk) => {
    const rows: TokenInfo[] = tokenIds.map((tokenId) => ({ tokenId }));
    if (facets.has('status')) {
      const statuses = await sdk.tokens.statuses([...tokenIds]);
      for (const row of rows) row.paused = statuses.get(row.tokenId)?.isPaused ?? null;
    }
    if (facets.has('price')) {
      const prices = await sdk.tokens.directPurchasePrices([...tokenIds]);
      for (const row of rows) {
        const price = prices.get(row.tokenId);
        row.price = price ? { basePriceCredits: price.basePrice, currentPriceCredits: price.currentPrice } : null;
      }
    }
    if (facets.has('supply')) {
      for (const row of rows) row.totalSupply = (await sdk.tokens.totalSupply(row.tokenId))?.totalSupply ?? null;
    }
    return rows;
  });
}

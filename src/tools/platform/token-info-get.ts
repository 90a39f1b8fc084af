import { z } from 'zod';
import { defineTool } from '../define.js';
import { tokenUnitsOf } from '../fields.js';
import { describedWithBrief } from '../lean-schema.js';
import { CreditsAmount, OptionalPlatformNetwork, PlatformId } from './platform-fields.js';

const Facet = z.enum(['supply', 'status', 'price']);

export const platformTokenInfoGet = defineTool({
  name: 'platform_token_info_get',
  group: 'platform_identity',
  title: 'Platform token information',
  summary: "Get Platform tokens' supply, paused status and price",
  description: [
    'Reads Dash Platform tokens by id (up to 100): the total supply in base units, whether the token',
    'is paused (transfers stopped), and its direct-purchase price in credits (the base price and the',
    'one charged now). include picks which (all three when omitted; each is one more request).',
    'Proved: an answer that does not check is BACKEND_INVALID, never shown; null is proved none.',
    '',
    'Example: wallet platform-token-info-get --token-ids BzcDq6fPX9HJRdUFvUSrGc4pNo66Y7ToaDnQzYAw6mC3',
  ].join('\n'),
  input: () =>
    z.strictObject({
      token_ids: describedWithBrief(
        z.array(PlatformId).min(1).max(100),
        'The tokens: their ids, base58 (32 bytes each), at most 100.',
        '',
      ),
      include: describedWithBrief(
        z.array(Facet).min(1).max(3).optional(),
        'Which facts: supply, status, price; all three when omitted.',
        'Default: all',
      ),
      network: OptionalPlatformNetwork,
    }),
  output: () =>
    z.object({
      network: z.string().describe('The Platform network asked.'),
      tokens: z
        .array(
          z.object({
            token_id: z.string().describe("The token's id, base58."),
            total_supply: tokenUnitsOf('token_id')
              .nullable()
              .optional()
              .describe('Its total supply in base units (digits); null: none recorded (proved); absent: not asked.'),
            paused: z
              .boolean()
              .nullable()
              .optional()
              .describe('Whether it is paused; null: no status set (proved, not paused); absent: not asked.'),
            price: z
              .object({
                base_price_credits: CreditsAmount.describe('Its base price per token, credits.'),
                current_price_credits: CreditsAmount.describe('The price charged now per token, credits.'),
              })
              .nullable()
              .optional()
              .describe('Its direct-purchase price; null: not for sale (proved); absent: not asked.'),
          }),
        )
        .describe('One row per token asked, in the order asked.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ token_ids, include, network }, { services }) => {
    const { platformNetwork } = await import('../../domain/platform/network.js');
    const { fetchTokenInfos } = await import('../../domain/platform/tokens.js');
    const resolved = platformNetwork(await services.platformNetworks(), network);
    const rows = await fetchTokenInfos(resolved, token_ids, new Set(include ?? Facet.options));
    return {
      network: resolved.network,
      tokens: rows.map((row) => ({
        token_id: row.tokenId,
        ...(row.totalSupply === undefined
          ? {}
          : { total_supply: row.totalSupply === null ? null : row.totalSupply.toString() }),
        ...(row.paused === undefined ? {} : { paused: row.paused }),
        ...(row.price === undefined
          ? {}
          : {
              price:
                row.price === null
                  ? null
                  : {
                      base_price_credits: row.price.basePriceCredits,
                      current_price_credits: row.price.currentPriceCredits,
                    },
            }),
      })),
    };
  },
});

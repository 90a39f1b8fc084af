import { z } from 'zod';
import { defineTool } from '../define.js';
import { tokenUnitsOf } from '../fields.js';
import { describedWithBrief } from '../lean-schema.js';
import { OptionalPlatformNetwork, PlatformId } from './platform-fields.js';

export const platformTokenBalancesGet = defineTool({
  name: 'platform_token_balances_get',
  group: 'platform_identity',
  title: 'Platform token balances',
  summary: "Get a Platform identity's balances of some tokens",
  description: [
    "Reads a Dash Platform identity's balances of the tokens named (their ids, up to 100), in each",
    "token's base units (its decimals are in its contract's token configuration). Proved: an answer",
    'that does not check is BACKEND_INVALID, never shown; a token the identity holds none of is',
    'proved absent and comes back as null.',
    '',
    'Example: wallet platform-token-balances-get --identity-id 4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi --token-ids BzcDq6fPX9HJRdUFvUSrGc4pNo66Y7ToaDnQzYAw6mC3',
  ].join('\n'),
  input: () =>
    z.strictObject({
      identity_id: describedWithBrief(PlatformId, 'The identity: its id, base58 (32 bytes).', ''),
      token_ids: describedWithBrief(
        z.array(PlatformId).min(1).max(100),
        'The tokens: their ids, base58 (32 bytes each), at most 100.',
        '',
      ),
      network: OptionalPlatformNetwork,
    }),
  output: () =>
    z.object({
      network: z.string().describe('The Platform network asked.'),
      identity_id: z.string().describe("The identity's id, base58."),
      balances: z
        .array(
          z.object({
            token_id: z.string().describe("The token's id, base58."),
            balance: tokenUnitsOf('token_id')
              .nullable()
              .describe("The identity's balance in the token's base units (digits); null: none (proved)."),
          }),
        )
        .describe('One row per token asked, in the order asked.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ identity_id, token_ids, network }, { services }) => {
    const { platformNetwork } = await import('../../domain/platform/network.js');
    const { fetchTokenBalances } = await import('../../domain/platform/tokens.js');
    const resolved = platformNetwork(await services.platformNetworks(), network);
    const balances = await fetchTokenBalances(resolved, identity_id, token_ids);
    return {
      network: resolved.network,
      identity_id,
      balances: balances.map((row) => ({
        token_id: row.tokenId,
        balance: row.balance === null ? null : row.balance.toString(),
      })),
    };
  },
});

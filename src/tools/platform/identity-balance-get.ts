import { z } from 'zod';
import { defineTool } from '../define.js';
import { identityBalanceFields, identityInput } from './platform-fields.js';

export const platformIdentityBalanceGet = defineTool({
  name: 'platform_identity_balance_get',
  group: 'platform_identity',
  title: 'Platform identity balance',
  summary: 'Get a Platform identity balance in credits and DASH',
  description: [
    "Reads a Dash Platform identity's balance by its id, in credits and in DASH (1 DASH =",
    '100000000000 credits). Proved: an answer whose GroveDB proof, quorum signature or time does',
    'not check is BACKEND_INVALID, never shown. An identity proved absent is INVALID_PARAM.',
    '',
    'Example: wallet platform-identity-balance-get --identity-id 4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi',
  ].join('\n'),
  input: () => z.strictObject(identityInput()),
  output: () =>
    z.object({
      ...identityBalanceFields(),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ identity_id, network }, { services }) => {
    const { platformNetwork } = await import('../../domain/platform/network.js');
    const { fetchIdentityBalance } = await import('../../domain/platform/identities.js');
    const { creditsToDash } = await import('../../domain/platform/credits.js');
    const resolved = platformNetwork(await services.platformNetworks(), network);
    const credits = await fetchIdentityBalance(resolved, identity_id);
    return {
      network: resolved.network,
      identity_id,
      balance_credits: credits.toString(),
      balance_dash: creditsToDash(credits),
    };
  },
});

import { z } from 'zod';
import { defineTool } from '../define.js';
import { identityBalanceFields, identityInput } from './platform-fields.js';

export const platformIdentityGet = defineTool({
  name: 'platform_identity_get',
  group: 'platform_identity',
  title: 'Platform identity',
  summary: 'Get a Platform identity: balance, revision, keys',
  description: [
    'Reads a Dash Platform identity by its id: its balance in credits and in DASH (1 DASH =',
    '100000000000 credits), its revision and its public keys (id, type, purpose, security level,',
    'read-only, data, disabled). Every answer is proved: the SDK checks the GroveDB proof and the',
    "quorum's signature, and its time; an answer that does not check is BACKEND_INVALID, never shown.",
    'An identity proved absent is INVALID_PARAM.',
    '',
    "mainnet and testnet are asked through the SDK's public nodes; another network (local, a",
    'devnet) through config.json platform.networks.<name>.dapi_addresses and quorum_url.',
    '',
    'Example: wallet platform-identity-get --identity-id 4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi --network local',
  ].join('\n'),
  input: () => z.strictObject(identityInput()),
  output: () =>
    z.object({
      ...identityBalanceFields(),
      revision: z.string().describe('Its revision: how many times its keys changed (digits).'),
      public_keys: z
        .array(
          z.object({
            id: z.int().describe("The key's id within the identity."),
            type: z.string().describe('The key type, e.g. ECDSA_SECP256K1.'),
            purpose: z.string().describe('What it is for, e.g. AUTHENTICATION, TRANSFER.'),
            security_level: z.string().describe('MASTER, CRITICAL, HIGH or MEDIUM.'),
            read_only: z.boolean().describe('Whether it can never be changed.'),
            data: z.string().describe('The public key (or its hash), hex.'),
            disabled_at: z.string().nullable().describe('When it was disabled (ms since 1970); null when enabled.'),
          }),
        )
        .describe("The identity's public keys."),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ identity_id, network }, { services }) => {
    const { platformNetwork } = await import('../../domain/platform/network.js');
    const { fetchIdentity } = await import('../../domain/platform/identities.js');
    const { creditsToDash } = await import('../../domain/platform/credits.js');
    const resolved = platformNetwork(await services.platformNetworks(), network);
    const identity = await fetchIdentity(resolved, identity_id);
    return {
      network: resolved.network,
      identity_id: identity.id,
      balance_credits: identity.balanceCredits.toString(),
      balance_dash: creditsToDash(identity.balanceCredits),
      revision: identity.revision.toString(),
      public_keys: identity.publicKeys.map((key) => ({
        id: key.id,
        type: key.type,
        purpose: key.purpose,
        security_level: key.securityLevel,
        read_only: key.readOnly,
        data: key.data,
        disabled_at: key.disabledAt === null ? null : key.disabledAt.toString(),
      })),
    };
  },
});

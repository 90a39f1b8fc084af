import { z } from 'zod';
import { defineTool } from '../define.js';
import { WalletError } from '../../domain/errors.js';
import { describedWithBrief } from '../lean-schema.js';
import { identityBalanceFields, OptionalPlatformNetwork, PlatformId, PublicKeyHash } from './platform-fields.js';

export const platformIdentityGet = defineTool({
  name: 'platform_identity_get',
  group: 'platform_identity',
  title: 'Platform identity',
  summary: 'Get a Platform identity: balance, revision, keys',
  description: [
    'Reads a Dash Platform identity by its id, or by the HASH160 of one of its (unique) public',
    'keys: its balance in credits and in DASH (1 DASH = 100000000000 credits), its revision and its',
    'public keys (id, type, purpose, security level, read-only, data, disabled). Every answer is',
    "proved: the SDK checks the GroveDB proof, the quorum's signature and the time; an answer that",
    'does not check is BACKEND_INVALID, never shown.',
    'An identity proved absent is INVALID_PARAM.',
    '',
    "mainnet and testnet are asked through the SDK's public nodes; another network (local, a",
    'devnet) through config.json platform.networks.<name>.dapi_addresses and quorum_url.',
    '',
    'Example: wallet platform-identity-get --identity-id 4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi --network local',
    'Example: wallet platform-identity-get --public-key-hash 9b38c6edbaf06d13f1ef76d1b723c4bc8eaebb20 --network local',
  ].join('\n'),
  input: () =>
    z.strictObject({
      identity_id: describedWithBrief(
        PlatformId.optional(),
        'The identity: its id, base58 (32 bytes). Give it or public_key_hash.',
        '',
      ),
      public_key_hash: describedWithBrief(
        PublicKeyHash.optional(),
        'Or the identity holding a key: the HASH160 of that public key, 40 hex digits.',
        '',
      ),
      network: OptionalPlatformNetwork,
    }),
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
  handler: async ({ identity_id, public_key_hash, network }, { services }) => {
    if ((identity_id === undefined) === (public_key_hash === undefined)) {
      throw new WalletError('INVALID_PARAM', 'Give one of identity_id and public_key_hash.', {
        hint: 'identity_id finds an identity by its id; public_key_hash by the HASH160 of one of its keys.',
      });
    }
    const { platformNetwork } = await import('../../domain/platform/network.js');
    const { fetchIdentity, fetchIdentitiesByKeyHashes } = await import('../../domain/platform/identities.js');
    const { creditsToDash } = await import('../../domain/platform/credits.js');
    const resolved = platformNetwork(await services.platformNetworks(), network);
    const identity =
      public_key_hash === undefined
        ? await fetchIdentity(resolved, identity_id ?? '')
        : (await fetchIdentitiesByKeyHashes(resolved, [public_key_hash.toLowerCase()]))[0];
    if (!identity) {
      throw new WalletError(
        'INVALID_PARAM',
        `Platform ${resolved.network} has no identity with a key of hash ${public_key_hash} (proved absent).`,
        { hint: 'Check the hash (HASH160 of the compressed public key, hex) and the network.' },
      );
    }
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

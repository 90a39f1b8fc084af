import { z } from 'zod';
import { defineTool } from '../define.js';
import { coinsOf, WalletId } from '../fields.js';
import { describedWithBrief } from '../lean-schema.js';
import { CreditsAmount, OptionalPlatformNetwork } from './platform-fields.js';

export const platformIdentitiesList = defineTool({
  name: 'platform_identities_list',
  group: 'platform_identity',
  title: 'Platform identities of the wallet',
  summary: 'List the Platform identities this wallet controls',
  description: [
    "Finds the Dash Platform identities the wallet's seed controls: each identity index's first",
    "DIP-13 authentication key (m/9'/<coin>'/5'/0'/0'/<identity>'/0', coin 5 on mainnet, 1",
    'elsewhere) looked up by the HASH160 of its public key, index 0, 1, 2… until gap_limit in a row',
    'have no identity. Proved: an answer that does not check is BACKEND_INVALID, never shown. The',
    'keys are hardened: needs the keystore passphrase; shows only public data.',
    '',
    'Example: wallet platform-identities-list --wallet-id main --network testnet',
  ].join('\n'),
  input: () =>
    z.strictObject({
      wallet_id: WalletId,
      network: OptionalPlatformNetwork,
      gap_limit: describedWithBrief(
        z.int().min(1).max(20).optional(),
        'Stop after this many identity indexes in a row without an identity (1 to 20); 2 when omitted.',
        'Default: 2',
      ),
    }),
  output: () =>
    z.object({
      network: z.string().describe('The Platform network asked.'),
      wallet_id: z.string().describe("The wallet's fingerprint."),
      identities: z
        .array(
          z.object({
            identity_index: z.int().describe("The identity's DIP-13 index in the wallet."),
            identity_id: z.string().describe("The identity's id, base58."),
            key_path: z.string().describe('The DIP-13 path of the key it was found by.'),
            public_key_hash: z.string().describe("That key's HASH160, hex."),
            balance_credits: CreditsAmount.describe('Its balance in credits (digits).'),
            balance_dash: coinsOf('balance_credits').describe('Its balance in DASH (decimal, exact).'),
            revision: z.string().describe('Its revision (digits).'),
          }),
        )
        .describe('The identities found, by identity index.'),
      indexes_checked: z.int().describe('How many identity indexes were looked up, from 0.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ wallet_id, network, gap_limit }, { services }) => {
    const { platformNetwork } = await import('../../domain/platform/network.js');
    const { findWalletIdentities } = await import('../../domain/platform/wallet-identities.js');
    const { creditsToDash } = await import('../../domain/platform/credits.js');
    const resolved = platformNetwork(await services.platformNetworks(), network);
    const found = await findWalletIdentities(services, wallet_id, resolved, gap_limit ?? 2);
    return {
      network: resolved.network,
      wallet_id: found.walletId,
      identities: found.identities.map((row) => ({
        identity_index: row.identityIndex,
        identity_id: row.identity.id,
        key_path: row.keyPath,
        public_key_hash: row.publicKeyHash,
        balance_credits: row.identity.balanceCredits.toString(),
        balance_dash: creditsToDash(row.identity.balanceCredits),
        revision: row.identity.revision.toString(),
      })),
      indexes_checked: found.indexesChecked,
    };
  },
});

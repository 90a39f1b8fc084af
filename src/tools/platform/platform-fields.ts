/** Fields the Platform tools share: the network, identifiers, and amounts in credits. */
import { z } from 'zod';
import { UNIT_KEYWORD } from '../../shared/json-schema.js';
import { coinsOf } from '../fields.js';
import { describedWithBrief } from '../lean-schema.js';

/** For tools that only read: the configured default Platform network when omitted. */
export const OptionalPlatformNetwork = describedWithBrief(
  z.string().max(64).optional(),
  'The Dash Platform network: mainnet, testnet, or one in config.json (platform.networks, e.g. local); the configured default (platform.default_network, else testnet) when omitted.',
  'Default: the configured one',
);

/** A Platform identifier: 32 bytes in base58 (an identity, a contract, a document). */
export const PlatformId = z
  .string()
  .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'base58, 32 bytes (e.g. GWRSAVFMjXx8HpQFaNJMqBV7MBgMK4br5UESsB4S31Ec)');

/** The HASH160 of a public key, as Platform finds an identity by: 20 bytes, hex. */
export const PublicKeyHash = z.string().regex(/^[0-9a-fA-F]{40}$/, '40 hex digits (20 bytes)');

/** An amount in Platform credits, digits (1 DASH = 100000000000 credits). */
export const CreditsAmount = z.string().meta({ [UNIT_KEYWORD]: 'credits' });

/** The input of a tool about one identity: its id, and the network. */
export const identityInput = () => ({
  identity_id: describedWithBrief(PlatformId, 'The identity: its id, base58 (32 bytes).', ''),
  network: OptionalPlatformNetwork,
});

/** An identity's balance, as the identity tools' results show it. */
export const identityBalanceFields = () => ({
  network: z.string().describe('The Platform network asked.'),
  identity_id: z.string().describe("The identity's id, base58."),
  balance_credits: CreditsAmount.describe('Its balance in credits (digits).'),
  balance_dash: coinsOf('balance_credits').describe('Its balance in DASH (decimal, exact).'),
});

import { z } from 'zod';
import { Alias } from '../fields.js';

/** What the account tools say of an account. */
export const AccountFields = {
  address: z.string().describe('The account address, EIP-55 checksummed.'),
  alias: z.string().nullable().describe("The account's alias, or null."),
  source: z.enum(['derived', 'imported']).describe("derived from a wallet's seed, or an imported key."),
  wallet_id: z.string().nullable().describe('The fingerprint of the wallet whose seed derives it; null if imported.'),
  index: z.int().nullable().describe("Its index i in m/44'/60'/0'/0/i; null if imported."),
  path: z.string().nullable().describe('Its BIP44 path; null if imported.'),
};

export const AccountAlias = Alias.optional().describe(
  'An alias for the account. Usable as its address wherever an address of yours is asked for; a lower-case letter, then letters, digits, - or _.',
);

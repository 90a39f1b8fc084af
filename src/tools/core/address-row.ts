import { z } from 'zod';

/** An address the wallet handed out, as core_address_create and core_addresses_list show it. */
export const AddressRow = {
  address: z.string().describe('The P2PKH address.'),
  path: z.string().describe("Its BIP44 derivation path, e.g. m/44'/1'/0'/0/3."),
  index: z.int().describe('Its index on its chain.'),
};

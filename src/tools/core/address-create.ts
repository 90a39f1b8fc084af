import { z } from 'zod';
import { defineTool } from '../define.js';
import { OptionalCoreNetwork, WalletId } from '../fields.js';
import { AddressRow } from './address-row.js';

/** The wallet's addresses (HD derivation, the keystore) load on a call's first use, not at start-up. */
const addresses = () => import('../../domain/dash/addresses.js');

export const coreAddressCreate = defineTool({
  name: 'core_address_create',
  group: 'core_address',
  receiveAddressField: 'address',
  title: 'New receive address',
  summary: 'Hand out the next BIP44 receive address',
  description: [
    "Derives the wallet's next receive address, m/44'/coin'/0'/0/i (coin 5 on mainnet, 1 on testnet",
    'and regtest), from the stored account xpub: no passphrase needed. The index is recorded before',
    'the address is returned, under the keystore lock, so no two calls (or processes) ever get the',
    'same address.',
    '',
    'Example: wallet core-address-create --wallet-id main --network testnet',
  ].join('\n'),
  input: () => z.strictObject({ wallet_id: WalletId, network: OptionalCoreNetwork }),
  output: () =>
    z.object({
      ...AddressRow,
      wallet_id: z.string().describe("The wallet's fingerprint."),
      network: z.string().describe('The Dash network of the address.'),
    }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  handler: async ({ wallet_id, network }, { services }) => {
    const { createAddress } = await addresses();
    const created = await createAddress(services, wallet_id, network);
    return {
      address: created.address,
      path: created.path,
      index: created.index,
      wallet_id: created.entry.id,
      network: created.entry.network,
    };
  },
});

import { z } from 'zod';
import { validateAddress } from '../../domain/dash/address.js';
import { defineTool } from '../define.js';
import { CoreAddress, OptionalCoreNetwork, WalletId } from '../fields.js';

/** The wallet's addresses (HD derivation, the keystore) load on a call's first use, not at start-up. */
const addresses = () => import('../../domain/dash/addresses.js');
const wallets = () => import('../../domain/dash/wallets.js');

const AddressRow = {
  address: z.string().describe('The P2PKH address.'),
  path: z.string().describe("Its BIP44 derivation path, e.g. m/44'/1'/0'/0/3."),
  index: z.int().describe('Its index on its chain.'),
};

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

export const coreAddressesList = defineTool({
  name: 'core_addresses_list',
  group: 'core_address',
  title: 'List addresses',
  summary: "List a wallet's receive and change addresses",
  description: [
    'Lists the addresses the wallet has handed out (receive chain) and used for change, with their',
    'paths. Derived from the account xpub; no passphrase, no network access.',
    '',
    'Example: wallet core-addresses-list --wallet-id main --chain receive',
  ].join('\n'),
  input: () =>
    z.strictObject({
      wallet_id: WalletId,
      network: OptionalCoreNetwork,
      chain: z.enum(['receive', 'change']).optional().describe('Only this chain; both when omitted.'),
    }),
  output: () =>
    z.object({
      wallet_id: z.string().describe("The wallet's fingerprint."),
      network: z.string().describe("The wallet's network."),
      addresses: z
        .array(z.object({ ...AddressRow, chain: z.enum(['receive', 'change']).describe('receive or change.') }))
        .describe('Receive addresses first, each chain by index.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ wallet_id, network, chain }, { services }) => {
    const [{ openWallet }, { issuedAddresses }] = await Promise.all([wallets(), addresses()]);
    const entry = await openWallet(services, wallet_id, network);
    return {
      wallet_id: entry.id,
      network: entry.network,
      addresses: await issuedAddresses(services, entry, chain ? [chain] : undefined),
    };
  },
});

export const coreAddressValidate = defineTool({
  name: 'core_address_validate',
  group: 'core_address',
  checkField: 'valid',
  title: 'Validate an address',
  summary: 'Check a Dash address: checksum, type and network',
  description: [
    'Checks that a string is a Dash address: Base58Check checksum, length, and a P2PKH or P2SH',
    'version byte, and tells which network it belongs to. Testnet and regtest share version bytes,',
    'so such an address is valid on both. With network, valid is false for another network.',
    'An invalid address is a result (valid: false, with the problem), not an error.',
    '',
    'Example: wallet core-address-validate --address yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt',
  ].join('\n'),
  input: () =>
    z.strictObject({
      address: CoreAddress,
      network: z
        .enum(['mainnet', 'testnet', 'regtest'])
        .optional()
        .describe('Also check the network. The address must be for this one.'),
    }),
  output: () =>
    z.object({
      valid: z.boolean().describe('Whether it is a valid Dash address (for network, when given).'),
      network: z
        .enum(['mainnet', 'testnet'])
        .nullable()
        .describe('mainnet, or testnet for the testnet/regtest prefixes; null when not an address.'),
      networks: z.array(z.string()).describe('Every Dash network the address is valid on.'),
      type: z
        .enum(['p2pkh', 'p2sh'])
        .nullable()
        .describe('Pay to public key hash or to script hash; null when invalid.'),
      problem: z.string().nullable().describe('Why it is invalid; null when valid.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ address, network }) => {
    const check = validateAddress(address, network);
    const family = check.networks.includes('mainnet')
      ? ('mainnet' as const)
      : check.networks.length > 0
        ? ('testnet' as const)
        : null;
    return { valid: check.valid, network: family, networks: check.networks, type: check.type, problem: check.problem };
  },
});

export const coreAddressesDiscover = defineTool({
  name: 'core_addresses_discover',
  group: 'core_address',
  title: 'Discover used addresses',
  summary: 'Scan the chain for used addresses (BIP44 gap limit)',
  description: [
    "Asks the network's backend which of the wallet's addresses were used, walking the receive and",
    'change chains in windows of 20 (the BIP44 gap limit) until 20 in a row are unused, and raises',
    "the wallet's address counts past every used one (never lowering them). Run after an import or",
    'a restore. With a core-rpc node without -addressindex the scan (scantxoutset) sees only',
    'addresses that still hold coins; history says which kind of scan ran.',
    '',
    'Example: wallet core-addresses-discover --wallet-id old',
  ].join('\n'),
  input: () => z.strictObject({ wallet_id: WalletId, network: OptionalCoreNetwork }),
  output: () =>
    z.object({
      wallet_id: z.string().describe("The wallet's fingerprint."),
      network: z.string().describe("The wallet's network."),
      receive_addresses: z.int().describe('Receive addresses handed out after discovery.'),
      change_addresses: z.int().describe('Change addresses used after discovery.'),
      scanned: z.int().describe('How many addresses were checked.'),
      history: z
        .enum(['history', 'unspent-only'])
        .describe('history: any past use counts; unspent-only: only addresses holding coins were seen.'),
    }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ wallet_id, network }, { services, progress, signal }) => {
    const [{ openWallet }, { discoverAddresses }] = await Promise.all([wallets(), addresses()]);
    const entry = await openWallet(services, wallet_id, network);
    const { backendFor } = await import('../../domain/dash/network.js');
    const result = await discoverAddresses(services, entry, await backendFor(services, entry.network), {
      progress,
      signal,
    });
    return {
      wallet_id: result.entry.id,
      network: result.entry.network,
      receive_addresses: result.entry.account.next_receive,
      change_addresses: result.entry.account.next_change,
      scanned: result.scanned,
      history: result.historyKind,
    };
  },
});

import { z } from 'zod';
import { CHAINS, CORE_NETWORKS } from '../domain/config/networks.js';
import { DUFFS_PATTERN } from '../domain/core/amount.js';
import { WEI_PATTERN } from '../domain/evm/amount.js';
import { ALIAS_PATTERN } from '../domain/keystore/keystore-format.js';

/**
 * Field types shared by tools, so the same thing has the same name, shape and description
 * everywhere. Add a field here before a second tool needs it.
 */

export const Chain = z.enum(CHAINS).describe('The chain: core (Dash Core) or evm (Ethereum and EVM chains).');

export const ToolName = z
  .string()
  .min(1)
  .max(128)
  .describe('A tool name as in tools/list, e.g. core_address_create (the CLI command with - for _ works too).');

export const JsonSchemaObject = z.record(z.string(), z.unknown());

export const WalletId = z
  .string()
  .min(1)
  .max(64)
  .describe('The wallet: its alias (e.g. main) or its fingerprint (8 hex digits, core-wallets-list shows both).');

export const Alias = z
  .string()
  .regex(ALIAS_PATTERN, 'a lower-case letter, then up to 31 letters, digits, - or _')
  .describe('A short name for the wallet, e.g. main: a lower-case letter, then letters, digits, - or _ (max 32).');

export const CoreNetwork = z.enum(CORE_NETWORKS).describe('The Dash network: mainnet, testnet or regtest.');

/** For tools that spend or delete: the network must be given, and must be the wallet's. */
export const RequiredCoreNetwork = CoreNetwork.describe(
  "The Dash network (mainnet, testnet or regtest); required, and refused unless it is the wallet's.",
);

/** For tools that only read or derive: the wallet's own network when omitted; refused if it differs. */
export const OptionalCoreNetwork = CoreNetwork.optional().describe(
  "The Dash network; defaults to the wallet's. A different one is refused (NETWORK_MISMATCH).",
);

export const Duffs = z
  .string()
  .regex(DUFFS_PATTERN, 'a whole number of duffs written in digits, e.g. "150000" (1 DASH = 100000000 duffs)')
  .describe('An amount in duffs, as a string of digits (1 DASH = 100000000 duffs).');

export const CoreAddress = z
  .string()
  .min(1)
  .max(128)
  .describe('A Dash address (Base58Check: X… or 7… on mainnet, y… or 8… on testnet/regtest).');

/** A secret input: never in argv, never in `wallet serve` (the tool must be local-only). */
export function secretString(description: string): z.ZodString {
  return z.string().meta({ format: 'password', writeOnly: true }).describe(description);
}

const EVM_NETWORK_PATTERN = /^[a-z][a-z0-9-]*$/;

/** An EVM network: a built-in (mainnet, sepolia, local) or one named in the config file. */
export const EvmNetwork = z
  .string()
  .regex(EVM_NETWORK_PATTERN, 'a network name: lower-case letters, digits and dashes')
  .describe('The EVM network: mainnet, sepolia, local (anvil, chain id 31337) or one from the config file.');

/** For tools that spend or sign for a chain: the network must be given; its chain id is checked. */
export const RequiredEvmNetwork = EvmNetwork.describe(
  "The EVM network (mainnet, sepolia, local or a configured one); required: the node's and the transaction's chain id must be its own.",
);

/** For tools that only read: the configured default EVM network when omitted. */
export const OptionalEvmNetwork = EvmNetwork.optional().describe(
  'The EVM network (mainnet, sepolia, local or a configured one); the configured default when omitted.',
);

export const EvmAddress = z
  .string()
  .min(1)
  .max(64)
  .describe('An EVM address: 0x and 40 hex digits; mixed case must be a correct EIP-55 checksum.');

/** One of the keystore's EVM accounts, by address or alias. */
export const EvmAccount = z
  .string()
  .min(1)
  .max(64)
  .describe('A keystore EVM account: its 0x address or its alias (evm-accounts-list shows both).');

export const Wei = z
  .string()
  .regex(WEI_PATTERN, 'a whole number of wei written in digits, e.g. "1000000000000000000" (1 ether)')
  .describe('An amount in wei, as a string of digits (1 ether = 10^18 wei).');

export const HexData = z
  .string()
  .max(300_000)
  .describe('Calldata: 0x followed by whole bytes in hex (e.g. an ABI-encoded call).');

export const TxHash = z.string().min(1).max(80).describe('A transaction hash: 0x and 64 hex digits.');

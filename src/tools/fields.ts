import { z } from 'zod';
import { BUILTIN_NETWORKS, CORE_NETWORKS } from '../domain/config/networks.js';
import { DUFFS_PATTERN } from '../domain/dash/amount.js';
import { WEI_PATTERN } from '../domain/evm/amount.js';
import { ALIAS_PATTERN } from '../domain/keystore/keystore-format.js';
import { COMPLETES_KEYWORD, PER_KEYWORD, UNIT_KEYWORD } from '../shared/json-schema.js';
import { describedWithBrief } from './lean-schema.js';

/**
 * Field types shared by tools, so the same thing has the same name, shape and description
 * everywhere. Add a field here before a second tool needs it. A brief (`describedWithBrief`) is
 * the short description the default profile lists (else the first sentence of the description);
 * the full text reaches agents through tool_describe.
 */

export const ToolName = describedWithBrief(
  z.string().min(1).max(128),
  'A tool name as in tools/list, e.g. core_address_create (the CLI command with - for _ works too).',
  'A tool name',
);

export const JsonSchemaObject = z.record(z.string(), z.unknown());

/** The text a message tool signs or verifies, on either chain. */
export const Message = z.string().max(100_000).describe('UTF-8 text. The message itself.');

/**
 * Optional everywhere: when omitted, the keystore's only wallet (on the tool's network, when it
 * takes one), else the config file's default_wallet; with several, the tool refuses, naming them.
 */
export const WalletId = describedWithBrief(
  z.string().min(1).max(64).optional(),
  "The wallet: its alias (e.g. main) or its fingerprint (8 hex digits, core-wallets-list shows both). When omitted: the keystore's only wallet (on the network given), else default_wallet from config.json; with several, the call is refused, naming them.",
  'Alias or fingerprint',
);

export const Alias = describedWithBrief(
  z.string().regex(ALIAS_PATTERN, 'a lower-case letter, then up to 31 letters, digits, - or _'),
  'A short name for the wallet, e.g. main: a lower-case letter, then letters, digits, - or _ (max 32).',
  'Wallet alias: a-z first, then a-z0-9-_',
);

export const CoreNetwork = describedWithBrief(
  z.enum(CORE_NETWORKS),
  'The Dash network: mainnet, testnet or regtest.',
  'Dash network',
);

/** For tools that spend or delete: the network must be given, and must be the wallet's. */
export const RequiredCoreNetwork = describedWithBrief(
  CoreNetwork,
  "The Dash network (mainnet, testnet or regtest); required, and refused unless it is the wallet's.",
  '',
);

/** For tools that only read or derive: the wallet's own network when omitted; refused if it differs. */
export const OptionalCoreNetwork = describedWithBrief(
  CoreNetwork.optional(),
  "The Dash network; defaults to the wallet's. A different one is refused (NETWORK_MISMATCH).",
  "Default: the wallet's",
);

export const Duffs = describedWithBrief(
  z
    .string()
    .regex(DUFFS_PATTERN, 'a whole number of duffs written in digits, e.g. "150000" (1 DASH = 100000000 duffs)')
    .meta({ [UNIT_KEYWORD]: 'duffs' }),
  'An amount in duffs, as a string of digits (1 DASH = 100000000 duffs).',
  'Duffs, in digits',
);

export const CoreAddress = describedWithBrief(
  z.string().min(1).max(128),
  'A Dash address (Base58Check: X… or 7… on mainnet, y… or 8… on testnet/regtest).',
  'A Dash address',
);

/** A secret input: never in argv, never in `wallet serve` (the tool must be local-only). */
export function secretString(description: string): z.ZodString {
  return z.string().meta({ format: 'password', writeOnly: true }).describe(description);
}

const EVM_NETWORK_PATTERN = /^[a-z][a-z0-9-]*$/;

/**
 * An EVM network: a built-in (mainnet, sepolia, local) or one named in the config file. The
 * built-ins are its `examples`; shell completion adds the configured ones (`x-completes`).
 */
const EvmNetwork = describedWithBrief(
  z
    .string()
    .regex(EVM_NETWORK_PATTERN, 'a network name: lower-case letters, digits and dashes')
    .meta({
      [COMPLETES_KEYWORD]: 'evm-network',
      examples: BUILTIN_NETWORKS.filter((network) => network.chain === 'evm').map((network) => network.network),
    }),
  'The EVM network: mainnet, sepolia, local (anvil, chain id 31337) or one from the config file.',
  'e.g. mainnet or local',
);

/** For tools that spend or sign for a chain: the network must be given; its chain id is checked. */
export const RequiredEvmNetwork = describedWithBrief(
  EvmNetwork,
  "The EVM network (mainnet, sepolia, local or a configured one); required: the node's and the transaction's chain id must be its own.",
  'e.g. mainnet or local',
);

/** For tools that only read: the configured default EVM network when omitted. */
export const OptionalEvmNetwork = describedWithBrief(
  EvmNetwork.optional(),
  'The EVM network (mainnet, sepolia, local or a configured one); the configured default when omitted.',
  'Default: the configured one',
);

export const EvmAddress = describedWithBrief(
  z.string().min(1).max(64),
  'An EVM address: 0x and 40 hex digits; mixed case must be a correct EIP-55 checksum.',
  'An EVM address',
);

/** Shell completion offers the aliases of the keystore's EVM accounts for these (`x-completes`). */
const ACCOUNT_ALIASES = { [COMPLETES_KEYWORD]: 'evm-account' };

/** Any EVM address, or the alias of a keystore account: a sender to plan for, a recipient, a signer to check. */
export const EvmAddressOrAlias = describedWithBrief(
  z.string().min(1).max(64).meta(ACCOUNT_ALIASES),
  "An EVM address (0x and 40 hex digits), or a keystore account's alias.",
  'Address or account alias',
);

/** One of the keystore's EVM accounts, by address or alias. */
export const EvmAccount = describedWithBrief(
  z.string().min(1).max(64).meta(ACCOUNT_ALIASES),
  'A keystore EVM account: its 0x address or its alias (evm-accounts-list shows both).',
  'Keystore account: address or alias',
);

export const Wei = describedWithBrief(
  z
    .string()
    .regex(WEI_PATTERN, 'a whole number of wei written in digits, e.g. "1000000000000000000" (1 ether)')
    .meta({ [UNIT_KEYWORD]: 'wei' }),
  'An amount in wei, as a string of digits (1 ether = 10^18 wei).',
  'Wei, in digits',
);

export const HexData = describedWithBrief(
  // Canonical at the boundary: what the question shows and the digest binds is what is signed
  // (a leading space once hid a token transfer from the question, while the domain trimmed it).
  z
    .string()
    .max(300_000)
    .regex(/^0x([0-9a-fA-F]{2})*$/, '0x followed by whole bytes in hex, nothing before or after'),
  'Calldata: 0x followed by whole bytes in hex (e.g. an ABI-encoded call).',
  'Calldata, 0x hex',
);

export const TxHash = describedWithBrief(
  z.string().min(1).max(80),
  'A transaction hash: 0x and 64 hex digits.',
  'Transaction hash',
);

/** A fee rate: duffs per 1000 bytes of transaction. */
export const DuffsPerKb = Duffs.meta({ [PER_KEYWORD]: 'kB' });

/** A count in digits that is no amount (a gas limit). */
export const Digits = z.string().regex(WEI_PATTERN, 'a whole number written in digits');

/**
 * Amounts in results: digits (with a sign where they may be negative), each declaring its unit in
 * its JSON Schema (`x-unit`, see `src/shared/json-schema.ts`), so any client renders it without
 * guessing from the field's name. Describe each where it is used.
 */
export const DuffsAmount = z.string().meta({ [UNIT_KEYWORD]: 'duffs' });
export const WeiAmount = z.string().meta({ [UNIT_KEYWORD]: 'wei' });
/** A gas price: wei per unit of gas (people read it in gwei). */
export const WeiPerGas = z.string().meta({ [UNIT_KEYWORD]: 'wei', [PER_KEYWORD]: 'gas' });

/** A token amount in its base units, whose decimals (and symbol) are the sibling fields named. */
export function tokenUnits(decimalsField: string, symbolField?: string): z.ZodString {
  return z.string().meta({
    [UNIT_KEYWORD]: { decimals: decimalsField, ...(symbolField ? { symbol: symbolField } : {}) },
  });
}

/** A token amount in base units of the token whose contract the sibling field names. */
export function tokenUnitsOf(tokenField: string): z.ZodString {
  return z.string().meta({ [UNIT_KEYWORD]: { token: tokenField } });
}

/** The amount of the sibling field again, in coins (a decimal, e.g. "1.5"). */
export function coinsOf(field: string): z.ZodString {
  return z.string().meta({ [UNIT_KEYWORD]: { 'coins-of': field } });
}

import { join } from 'node:path';
import { z } from 'zod';
import { readPrivateText, UnsafeFileError } from '../../shared/private-files.js';
import { addressProblem } from '../dash/address.js';
import { DUFFS_PATTERN, MAX_MONEY_DUFFS } from '../dash/amount.js';
import { MAX_UINT256, WEI_PATTERN } from '../evm/amount.js';
import { isEvmAddress } from '../evm/address.js';
import { asWalletError, hasSystemCode, WalletError } from '../errors.js';
import { CORE_BACKENDS, CORE_NETWORKS, type CoreNetwork } from './networks.js';

export const CONFIG_FILE_NAME = 'config.json';

const NetworkName = z.string().regex(/^[a-z][a-z0-9-]*$/, 'lower-case letters, digits and dashes');
const HttpUrl = z.url({ protocol: /^https?$/ });

/** Base units in decimal digits, kept as a string (JSON numbers lose precision past 2^53). */
const DuffsAmount = z
  .string()
  .regex(DUFFS_PATTERN, 'a whole number of duffs in digits, e.g. "150000000" (1.5 DASH)')
  .refine(
    (text) => !DUFFS_PATTERN.test(text) || BigInt(text) <= MAX_MONEY_DUFFS,
    'more than all the Dash there can be',
  );
const WeiAmount = z
  .string()
  .regex(WEI_PATTERN, 'a whole number of wei in digits, e.g. "1000000000000000000" (1 ether)')
  .refine((text) => !WEI_PATTERN.test(text) || BigInt(text) <= MAX_UINT256, 'larger than 2^256 - 1');

/** A Dash address of `network`, exactly as written (Base58 is case-sensitive). */
function dashAddressOf(network: CoreNetwork) {
  return z
    .string()
    .refine(
      (text) => addressProblem(text).decoded?.networks.includes(network) === true,
      `a Dash ${network} address (Base58Check, P2PKH or P2SH)`,
    );
}

/** An EVM address; mixed case must be a correct EIP-55 checksum. Compared checksummed. */
const EvmPolicyAddress = z
  .string()
  .refine(
    (text) => isEvmAddress(text),
    'an EVM address: 0x and 40 hex digits (mixed case must be a correct EIP-55 checksum)',
  );

/** A token amount in its base units, as digits (no unit: each token has its own decimals). */
const TokenAmount = z
  .string()
  .regex(WEI_PATTERN, 'a whole number of the token\'s base units in digits, e.g. "1000000" (1 USDC)')
  .refine((text) => !WEI_PATTERN.test(text) || BigInt(text) <= MAX_UINT256, 'larger than 2^256 - 1');

/** The spending policy of one Dash network: see docs/POLICY.md. */
function corePolicy(network: CoreNetwork) {
  return z.strictObject({
    max_per_tx_duffs: DuffsAmount.optional(),
    max_per_24h_duffs: DuffsAmount.optional(),
    allowed_recipients: z.array(dashAddressOf(network)).optional(),
    max_fee_duffs: DuffsAmount.optional(),
    /** What an agent may do with no human asked: both caps are required, so autonomy is always bounded. */
    autonomous: z
      .strictObject({
        max_per_tx_duffs: DuffsAmount,
        max_per_24h_duffs: DuffsAmount,
      })
      .optional(),
  });
}

/** One ERC-20 token's rules, in its base units. */
const TokenPolicyConfig = z.strictObject({
  max_per_tx: TokenAmount.optional(),
  max_per_24h: TokenAmount.optional(),
  autonomous: z.strictObject({ max_per_tx: TokenAmount, max_per_24h: TokenAmount }).optional(),
  unlimited_spenders: z.array(EvmPolicyAddress).optional(),
});

/**
 * A host name `evm_x402_fetch` may request and `--pay-from` may pay, as a URL writes it (no scheme,
 * port or path), or `stdio:<name>`: the stdio server saved under that name, which `--pay-from` may pay.
 */
const HostName = z
  .string()
  .regex(
    /^(?:[A-Za-z0-9-]{1,63}\.)*[A-Za-z0-9-]{1,63}$|^[0-9a-fA-F:]+$|^stdio:[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/,
    'a host name, e.g. "api.example.com", or "stdio:<saved server name>"',
  );

/** The spending policy of one EVM network: see docs/POLICY.md. */
const EvmPolicy = z.strictObject({
  max_per_tx_wei: WeiAmount.optional(),
  max_per_24h_wei: WeiAmount.optional(),
  allowed_recipients: z.array(EvmPolicyAddress).optional(),
  max_fee_wei: WeiAmount.optional(),
  autonomous: z
    .strictObject({
      max_per_tx_wei: WeiAmount,
      max_per_24h_wei: WeiAmount,
    })
    .optional(),
  tokens: z.record(EvmPolicyAddress, TokenPolicyConfig).optional(),
  allowed_hosts: z.array(HostName).optional(),
});

export type CorePolicyConfig = z.infer<ReturnType<typeof corePolicy>>;
export type EvmPolicyConfig = z.infer<typeof EvmPolicy>;

function coreNetworkConfig(network: CoreNetwork) {
  return z.strictObject({
    backend: z.enum(CORE_BACKENDS).optional(),
    url: HttpUrl.optional(),
    cookie_file: z.string().min(1).optional(),
    policy: corePolicy(network).optional(),
  });
}

/** Each Dash network has its own schema: an allowed recipient must be an address of that network. */
const CoreNetworksConfig = z.strictObject({
  mainnet: coreNetworkConfig('mainnet').optional(),
  testnet: coreNetworkConfig('testnet').optional(),
  regtest: coreNetworkConfig('regtest').optional(),
});

const EvmNetworkConfig = z.strictObject({
  url: HttpUrl.optional(),
  chain_id: z.int().positive().optional(),
  policy: EvmPolicy.optional(),
});

/**
 * A Dash Platform network of one's own (`local`, a devnet): the DAPI nodes to ask and the quorum
 * service whose keys verify their proofs. mainnet and testnet need neither (the SDK's defaults).
 */
const PlatformNetworkConfig = z.strictObject({
  dapi_addresses: z.array(HttpUrl).min(1).max(32).optional(),
  quorum_url: HttpUrl.optional(),
});

/** The values of `approvals.trust_elicitation`. */
const TRUST_ELICITATION = ['stdio', 'never', 'always'] as const;

/** `host:port` on loopback, and nothing else: the approval page is for a browser on this machine. */
const LOOPBACK_LISTEN = /^(?:127(?:\.\d{1,3}){3}|localhost|\[::1\]):\d{1,5}$/;

/** The config file's schema. Every section and field is optional; unknown keys are mistakes. */
const ConfigFileSchema = z.strictObject({
  /** The wallet (alias or fingerprint) a tool uses when wallet_id is omitted and several could be meant. */
  default_wallet: z.string().trim().min(1).max(64).optional(),
  core: z
    .strictObject({
      default_network: z.enum(CORE_NETWORKS).optional(),
      networks: CoreNetworksConfig.optional(),
    })
    .optional(),
  evm: z
    .strictObject({
      default_network: NetworkName.optional(),
      networks: z.record(NetworkName, EvmNetworkConfig).optional(),
    })
    .optional(),
  platform: z
    .strictObject({
      default_network: NetworkName.optional(),
      networks: z.record(NetworkName, PlatformNetworkConfig).optional(),
    })
    .optional(),
  approvals: z
    .strictObject({
      /**
       * Whose form-elicitation yes approves a call of `wallet serve`: `stdio` (default) only a client
       * it talks to over stdio (an agent host the owner started), `never`, or `always`.
       */
      trust_elicitation: z.enum(TRUST_ELICITATION).optional(),
      /** The approval page of `wallet serve` on stdio: where it listens (loopback only; port 0 any free one). */
      page: z.strictObject({ listen: z.string().regex(LOOPBACK_LISTEN).optional() }).optional(),
    })
    .optional(),
  /**
   * Where replicas share their state (docs/REPLICAS.md): a postgres:// URL without a password, and
   * the owner-only file the password is read from (else libpq's PGPASSWORD or PGPASSFILE).
   */
  state: z
    .strictObject({
      url: z.string().min(1).max(2000).optional(),
      password_file: z.string().min(1).optional(),
    })
    .optional(),
  /** The CLI's kept-alive servers' daemon: how many minutes without a call it waits before it ends (default 10). */
  daemon: z
    .strictObject({
      idle_minutes: z
        .number()
        .positive()
        .max(7 * 24 * 60)
        .optional(),
    })
    .optional(),
});

export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/**
 * Reads `<dataDir>/config.json`. A missing file is an empty config; a malformed one is an
 * `INVALID_PARAM` error naming the file and the first bad field (values are never echoed: the
 * file may hold credentials).
 */
export async function readConfigFile(dataDir: string): Promise<ConfigFile> {
  const path = join(dataDir, CONFIG_FILE_NAME);
  let text: string;
  try {
    // The spending policy is a security file: never read through a link, nor from a file others can write.
    text = readPrivateText(path);
  } catch (error) {
    if (error instanceof UnsafeFileError) throw asWalletError(error);
    if (hasSystemCode(error, 'ENOENT')) return {};
    throw new WalletError('INVALID_PARAM', `Cannot read the config file ${path}.`, { cause: error });
  }
  return parseConfigText(text, path);
}

export function parseConfigText(text: string, path: string): ConfigFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new WalletError('INVALID_PARAM', `The config file ${path} is not valid JSON.`, {
      hint: 'Fix the file or remove it to use the defaults.',
      cause: error,
    });
  }
  const parsed = ConfigFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(top level)';
    throw new WalletError(
      'INVALID_PARAM',
      `The config file ${path} is invalid at ${where}: ${issue?.message ?? 'invalid'}.`,
      {
        hint: issue?.path.includes('policy')
          ? 'See docs/POLICY.md for the spending policy format.'
          : 'See docs/CLI.md for the config file format.',
        cause: parsed.error,
      },
    );
  }
  return parsed.data;
}

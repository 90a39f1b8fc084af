import { z } from 'zod';
import { redactUrl, endpointEnvVar } from '../../domain/config/endpoints.js';
import { defineTool } from '../define.js';
import { CHAINS } from '../../domain/config/networks.js';
import { platformConfigKey } from '../../domain/platform/network.js';

export const networkInfo = defineTool({
  name: 'network_info',
  group: 'wallet_meta',
  title: 'Configured networks',
  summary: 'Configured networks per chain, defaults and endpoints',
  description: [
    'Lists every network the wallet knows, per chain (core: Dash Core; evm: Ethereum and EVM chains;',
    'platform: Dash Platform),',
    'which one is the default for read-only tools, the backend kind, the EVM chain id, and the',
    'endpoint with where it came from (flag, env, config, default: a node on this machine, or',
    'public: a public service built in). Credentials in endpoint URLs are never shown.',
    'Reads configuration only: it does not contact any node.',
    '',
    'Out of the box Dash mainnet and testnet use public Insight explorers and EVM mainnet and',
    "sepolia public RPC endpoints (viem's defaults); a public endpoint sees the addresses you ask",
    'about and your IP address. regtest and local stay on 127.0.0.1.',
    '',
    'Endpoints come from <data dir>/config.json (core.networks.<network>.url,',
    'evm.networks.<network>.url), overridden by WALLET_<CHAIN>_<NETWORK>_URL (e.g.',
    'WALLET_EVM_LOCAL_URL) and by the CLI flag --endpoint <chain>.<network>=<url>.',
    '',
    "Dash Platform: mainnet and testnet through the SDK's public DAPI nodes and quorum service; a",
    'network of your own (local, a devnet) through config.json platform.networks.<network>.dapi_addresses',
    '(a list of URLs) and platform.networks.<network>.quorum_url; platform.default_network picks the',
    'default (else testnet).',
    '',
    'Example: wallet network-info --chain evm',
  ].join('\n'),
  input: () =>
    z.strictObject({
      chain: z
        .enum([...CHAINS, 'platform'])
        .optional()
        .describe('Only this chain: core, evm or platform. All chains when omitted.'),
    }),
  output: () =>
    z.object({
      default_core_network: z.string().describe('The Dash Core network read-only tools use when none is given.'),
      default_evm_network: z.string().describe('The EVM network read-only tools use when none is given.'),
      default_platform_network: z
        .string()
        .describe('The Dash Platform network read-only tools use when none is given.'),
      networks: z
        .array(
          z.object({
            chain: z.string().describe('core, evm or platform.'),
            network: z.string().describe('The network name, as tools take it in `network`.'),
            default: z.boolean().describe('Whether this is the chain default.'),
            backend: z.string().describe('core-rpc, insight, evm-rpc or dapi (Dash Platform).'),
            chain_id: z.int().nullable().describe('The EVM chain id; null for Dash Core.'),
            endpoint: z
              .string()
              .nullable()
              .describe(
                "The endpoint URL, credentials redacted (Platform: its DAPI addresses, space-separated); null when none is set or the SDK's own.",
              ),
            quorum_url: z
              .string()
              .nullable()
              .describe(
                "Platform: the quorum service whose keys verify proofs; null for other chains or the SDK's own.",
              ),
            endpoint_source: z
              .enum(['flag', 'env', 'config', 'default', 'public'])
              .nullable()
              .describe('Where the endpoint came from; public: a public service built in; null: none set.'),
            env_var: z
              .string()
              .describe(
                'The environment variable that overrides the endpoint; for Platform, the config key instead (no variable).',
              ),
          }),
        )
        .describe('One row per network.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ chain }, { services }) => {
    const settings = await services.networks();
    const platform = await services.platformNetworks();
    return {
      default_core_network: settings.defaults.core,
      default_evm_network: settings.defaults.evm,
      default_platform_network: platform.find((entry) => entry.isDefault)?.network ?? '',
      networks: [
        ...settings.networks
          .filter((entry) => chain === undefined || entry.chain === chain)
          .map((entry) => ({
            chain: entry.chain,
            network: entry.network,
            default: entry.isDefault,
            backend: entry.backend,
            chain_id: entry.chainId,
            endpoint: entry.url === null ? null : redactUrl(entry.url),
            endpoint_source: entry.source,
            quorum_url: null,
            env_var: endpointEnvVar(entry.chain, entry.network),
          })),
        ...platform
          .filter(() => chain === undefined || chain === 'platform')
          .map((entry) => ({
            chain: 'platform',
            network: entry.network,
            default: entry.isDefault,
            backend: 'dapi',
            chain_id: null,
            endpoint: entry.dapiAddresses === null ? null : entry.dapiAddresses.map(redactUrl).join(' '),
            endpoint_source: entry.source,
            quorum_url: entry.quorumUrl === null ? null : redactUrl(entry.quorumUrl),
            env_var: platformConfigKey(entry.network, 'dapi_addresses'),
          })),
      ],
    };
  },
});

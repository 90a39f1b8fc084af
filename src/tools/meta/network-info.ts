import { z } from 'zod';
import { redactUrl, endpointEnvVar } from '../../domain/config/endpoints.js';
import { defineTool } from '../define.js';
import { Chain } from '../fields.js';

export const networkInfo = defineTool({
  name: 'network_info',
  group: 'wallet_meta',
  title: 'Configured networks',
  summary: 'Configured networks per chain, defaults and endpoints',
  description: [
    'Lists every network the wallet knows, per chain (core: Dash Core; evm: Ethereum and EVM chains),',
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
    'Example: wallet network-info --chain evm',
  ].join('\n'),
  input: () =>
    z.strictObject({
      chain: Chain.optional().describe('Only this chain: core or evm. All chains when omitted.'),
    }),
  output: () =>
    z.object({
      default_core_network: z.string().describe('The Dash Core network read-only tools use when none is given.'),
      default_evm_network: z.string().describe('The EVM network read-only tools use when none is given.'),
      networks: z
        .array(
          z.object({
            chain: z.string().describe('core or evm.'),
            network: z.string().describe('The network name, as tools take it in `network`.'),
            default: z.boolean().describe('Whether this is the chain default.'),
            backend: z.string().describe('core-rpc, insight or evm-rpc.'),
            chain_id: z.int().nullable().describe('The EVM chain id; null for Dash Core.'),
            endpoint: z.string().nullable().describe('The endpoint URL, credentials redacted; null when none is set.'),
            endpoint_source: z
              .enum(['flag', 'env', 'config', 'default', 'public'])
              .nullable()
              .describe('Where the endpoint came from; public: a public service built in; null: none set.'),
            env_var: z.string().describe('The environment variable that overrides the endpoint.'),
          }),
        )
        .describe('One row per network.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ chain }, { services }) => {
    const settings = await services.networks();
    return {
      default_core_network: settings.defaults.core,
      default_evm_network: settings.defaults.evm,
      networks: settings.networks
        .filter((entry) => chain === undefined || entry.chain === chain)
        .map((entry) => ({
          chain: entry.chain,
          network: entry.network,
          default: entry.isDefault,
          backend: entry.backend,
          chain_id: entry.chainId,
          endpoint: entry.url === null ? null : redactUrl(entry.url),
          endpoint_source: entry.source,
          env_var: endpointEnvVar(entry.chain, entry.network),
        })),
    };
  },
});

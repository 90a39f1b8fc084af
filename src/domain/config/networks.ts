/** The chains the wallet speaks and the networks each knows without any configuration. */
export const CHAINS = ['core', 'evm'] as const;
export type Chain = (typeof CHAINS)[number];

export const CORE_NETWORKS = ['mainnet', 'testnet', 'regtest'] as const;
export type CoreNetwork = (typeof CORE_NETWORKS)[number];

export const CORE_BACKENDS = ['core-rpc', 'insight'] as const;
export type CoreBackend = (typeof CORE_BACKENDS)[number];
export type Backend = CoreBackend | 'evm-rpc';

export type BuiltinNetwork = {
  chain: Chain;
  network: string;
  backend: Backend;
  /** EVM chain id; null for Dash Core networks. */
  chainId: number | null;
  /** The endpoint used when nothing else is set: a local node's usual address, or a public service. */
  defaultUrl: string;
  /** Whether `defaultUrl` is a public service on the internet (it sees your addresses and your IP). */
  publicDefault: boolean;
};

/**
 * Public Insight explorers for Dash mainnet and testnet, so a newcomer reads a balance without a node.
 * Insight's own API (dashevo/insight-api) at the paths Dash's explorers serve it.
 */
export const PUBLIC_INSIGHT_URLS = {
  mainnet: 'https://insight.dash.org/insight-api',
  testnet: 'https://insight.testnet.networks.dash.org/insight-api',
} as const;

/**
 * The public RPC endpoints viem's chain definitions carry (`mainnet.rpcUrls.default.http[0]`,
 * `sepolia.rpcUrls.default.http[0]`), copied from viem 2.57.1 so a Dash call never loads viem;
 * test/unit/config.test.ts checks they still equal viem's.
 */
export const PUBLIC_EVM_RPC_URLS = {
  mainnet: 'https://ethereum.reth.rs/rpc',
  sepolia: 'https://11155111.rpc.thirdweb.com',
} as const;

/** Where a Dash Core node's RPC listens by default (`backend: core-rpc` without a `url`). */
export const LOCAL_CORE_RPC_URLS: Readonly<Record<CoreNetwork, string>> = {
  mainnet: 'http://127.0.0.1:9998',
  testnet: 'http://127.0.0.1:19998',
  regtest: 'http://127.0.0.1:19898',
};

/**
 * Dash mainnet and testnet through public Insight explorers, EVM mainnet and sepolia through
 * public RPC endpoints; regtest (Dash Core's default regtest RPC port) and local (anvil) on localhost.
 */
export const BUILTIN_NETWORKS: readonly BuiltinNetwork[] = [
  {
    chain: 'core',
    network: 'mainnet',
    backend: 'insight',
    chainId: null,
    defaultUrl: PUBLIC_INSIGHT_URLS.mainnet,
    publicDefault: true,
  },
  {
    chain: 'core',
    network: 'testnet',
    backend: 'insight',
    chainId: null,
    defaultUrl: PUBLIC_INSIGHT_URLS.testnet,
    publicDefault: true,
  },
  {
    chain: 'core',
    network: 'regtest',
    backend: 'core-rpc',
    chainId: null,
    defaultUrl: LOCAL_CORE_RPC_URLS.regtest,
    publicDefault: false,
  },
  {
    chain: 'evm',
    network: 'mainnet',
    backend: 'evm-rpc',
    chainId: 1,
    defaultUrl: PUBLIC_EVM_RPC_URLS.mainnet,
    publicDefault: true,
  },
  {
    chain: 'evm',
    network: 'sepolia',
    backend: 'evm-rpc',
    chainId: 11155111,
    defaultUrl: PUBLIC_EVM_RPC_URLS.sepolia,
    publicDefault: true,
  },
  {
    chain: 'evm',
    network: 'local',
    backend: 'evm-rpc',
    chainId: 31337,
    defaultUrl: 'http://127.0.0.1:8545',
    publicDefault: false,
  },
];

/** The network a read-only tool uses when none is given and the config names none: test money. */
export const DEFAULT_NETWORKS: Readonly<Record<Chain, string>> = {
  core: 'testnet',
  evm: 'sepolia',
};

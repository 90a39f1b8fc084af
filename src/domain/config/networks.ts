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
  /** Where a node usually listens out of the box; null where no sensible default exists. */
  defaultUrl: string | null;
};

/** Dash Core's own default RPC ports, and anvil's default endpoint. */
export const BUILTIN_NETWORKS: readonly BuiltinNetwork[] = [
  { chain: 'core', network: 'mainnet', backend: 'core-rpc', chainId: null, defaultUrl: 'http://127.0.0.1:9998' },
  { chain: 'core', network: 'testnet', backend: 'core-rpc', chainId: null, defaultUrl: 'http://127.0.0.1:19998' },
  { chain: 'core', network: 'regtest', backend: 'core-rpc', chainId: null, defaultUrl: 'http://127.0.0.1:19898' },
  { chain: 'evm', network: 'mainnet', backend: 'evm-rpc', chainId: 1, defaultUrl: null },
  { chain: 'evm', network: 'sepolia', backend: 'evm-rpc', chainId: 11155111, defaultUrl: null },
  { chain: 'evm', network: 'local', backend: 'evm-rpc', chainId: 31337, defaultUrl: 'http://127.0.0.1:8545' },
];

/** The network a read-only tool uses when none is given and the config names none: test money. */
export const DEFAULT_NETWORKS: Readonly<Record<Chain, string>> = {
  core: 'testnet',
  evm: 'sepolia',
};

/**
 * Dash Platform's networks: mainnet and testnet through the SDK's own defaults (its DAPI seed
 * nodes and quorum service, https), and networks of one's own (`local`, a devnet) through DAPI
 * addresses and a quorum service URL in config.json (`platform.networks.<name>.dapi_addresses`,
 * `platform.networks.<name>.quorum_url`). Reads configuration only; loads no SDK.
 */
import type { ConfigFile } from '../config/config-file.js';
import { WalletError } from '../errors.js';
import { shownValue } from '../../shared/text.js';

/** The Platform networks the SDK knows by name; any other name is a devnet of one's own. */
const SDK_NETWORKS = ['mainnet', 'testnet', 'local'] as const;

/** The network a Platform tool reads when none is given and the config names none: test money. */
const DEFAULT_PLATFORM_NETWORK = 'testnet';

export type PlatformNetwork = {
  network: string;
  /** The SDK's name for it: mainnet, testnet, local, or devnet (any other name). */
  sdkNetwork: 'mainnet' | 'testnet' | 'local' | 'devnet';
  isDefault: boolean;
  /** The DAPI nodes asked; null: the SDK's own seed nodes (mainnet, testnet). */
  dapiAddresses: readonly string[] | null;
  /** The quorum service whose keys verify proofs; null: the SDK's own (mainnet, testnet). */
  quorumUrl: string | null;
  /** Where the endpoints come from: config.json, or the SDK's public defaults. */
  source: 'config' | 'public';
};

/** The config key of a Platform network's setting, for hints and network_info. */
export function platformConfigKey(network: string, key: 'dapi_addresses' | 'quorum_url'): string {
  return `platform.networks.${network}.${key}`;
}

/** Every Platform network: mainnet and testnet, then those config.json adds or points elsewhere. */
export function resolvePlatformNetworks(config: ConfigFile): PlatformNetwork[] {
  const configured = config.platform?.networks ?? {};
  const names = [...new Set(['mainnet', 'testnet', ...Object.keys(configured)])];
  const defaultName = config.platform?.default_network ?? DEFAULT_PLATFORM_NETWORK;
  if (!names.includes(defaultName)) {
    throw new WalletError(
      'INVALID_PARAM',
      `The default Platform network ${shownValue(defaultName)} is not configured.`,
      {
        hint: `Add it under platform.networks in the config file (${platformConfigKey(defaultName, 'dapi_addresses')}, ${platformConfigKey(defaultName, 'quorum_url')}), or choose mainnet or testnet.`,
      },
    );
  }
  return names.map((network) => {
    const own = configured[network];
    const sdkNetwork = (SDK_NETWORKS as readonly string[]).includes(network)
      ? (network as PlatformNetwork['sdkNetwork'])
      : 'devnet';
    const dapiAddresses = own?.dapi_addresses ?? null;
    const quorumUrl = own?.quorum_url ?? null;
    return {
      network,
      sdkNetwork,
      isDefault: network === defaultName,
      dapiAddresses,
      quorumUrl,
      source: dapiAddresses || quorumUrl ? 'config' : 'public',
    };
  });
}

/**
 * The network a Platform call uses: the one named, else the default. A network of one's own
 * needs both its DAPI addresses and its quorum service: without them no answer can be verified.
 */
export function platformNetwork(networks: readonly PlatformNetwork[], name: string | undefined): PlatformNetwork {
  const found = networks.find((entry) => (name === undefined ? entry.isDefault : entry.network === name));
  if (!found) {
    throw new WalletError('INVALID_PARAM', `Unknown Platform network ${shownValue(name ?? '')}.`, {
      hint: `Known: ${networks.map((entry) => entry.network).join(', ')}. Add one under platform.networks in config.json.`,
    });
  }
  const own = found.sdkNetwork === 'local' || found.sdkNetwork === 'devnet';
  if (own && (found.dapiAddresses === null || found.quorumUrl === null)) {
    throw new WalletError(
      'BACKEND_UNAVAILABLE',
      `The Platform network ${found.network} has no DAPI addresses or quorum service configured.`,
      {
        hint: `Set config keys ${platformConfigKey(found.network, 'dapi_addresses')} and ${platformConfigKey(found.network, 'quorum_url')}.`,
      },
    );
  }
  checkEndpoints(found);
  return found;
}

/** A loopback host: the only one a plain-http quorum service may be on. */
const LOOPBACK_HOST = /^(?:127(?:\.\d{1,3}){3}|localhost|\[::1\])$/;

/**
 * The configured endpoints a network may use, as config errors naming the key: mainnet and testnet
 * only over https (the SDK refuses anything else); the quorum service, whose keys decide which
 * answers are proved, over https or on loopback, since whoever answers it could vouch for forged
 * answers; DAPI nodes of a network of one's own over http too (their answers carry proofs).
 */
function checkEndpoints(network: PlatformNetwork): void {
  const publicNetwork = network.sdkNetwork === 'mainnet' || network.sdkNetwork === 'testnet';
  const refuse = (key: 'dapi_addresses' | 'quorum_url', why: string) =>
    new WalletError('INVALID_PARAM', `Config key ${platformConfigKey(network.network, key)} ${why}.`, {
      hint: `Fix ${platformConfigKey(network.network, key)} in config.json: an https:// URL${key === 'quorum_url' && !publicNetwork ? ', or http:// on loopback (127.0.0.1, localhost, [::1])' : ''}.`,
    });
  if (network.quorumUrl !== null) {
    const url = new URL(network.quorumUrl);
    if (url.protocol !== 'https:' && (publicNetwork || !LOOPBACK_HOST.test(url.hostname))) {
      throw refuse(
        'quorum_url',
        publicNetwork
          ? `must be https for Platform ${network.network}`
          : 'must be https unless on loopback: the quorum keys decide which answers count as proved',
      );
    }
  }
  if (publicNetwork && network.dapiAddresses?.some((address) => new URL(address).protocol !== 'https:')) {
    throw refuse('dapi_addresses', `must be https for Platform ${network.network}`);
  }
}

import { homedir } from 'node:os';
import { readConfigFile } from './config/config-file.js';
import { resolveDataDir } from './config/data-dir.js';
import { WalletError } from './errors.js';
import { resolveNetworks, type EndpointOverride, type NetworkSettings } from './config/endpoints.js';

export type WalletServicesOptions = {
  /** The data directory; defaults to `$WALLET_HOME` or the platform's. */
  dataDir?: string | undefined;
  env?: Readonly<Record<string, string | undefined>> | undefined;
  endpointOverrides?: readonly EndpointOverride[] | undefined;
  /** The keystore passphrase given at start (`--passphrase-file`, `--passphrase-stdin`); absent means locked. */
  passphrase?: string | undefined;
};

/**
 * The wallet's domain services, shared by every tool call of one server. Reads lazily: nothing
 * touches the disk until a tool needs it.
 */
export class WalletServices {
  readonly dataDir: string;
  private readonly env: Readonly<Record<string, string | undefined>>;
  private readonly endpointOverrides: readonly EndpointOverride[];
  private settings: Promise<NetworkSettings> | undefined;
  private readonly passphrase: string | undefined;

  constructor(options: WalletServicesOptions = {}) {
    this.env = options.env ?? process.env;
    this.dataDir = options.dataDir ?? resolveDataDir({ env: this.env, platform: process.platform, home: homedir() });
    this.endpointOverrides = options.endpointOverrides ?? [];
    this.passphrase = options.passphrase;
  }

  /** The passphrase that unlocks the keystore, or `WALLET_LOCKED` when none was given. */
  unlockPassphrase(): string {
    if (this.passphrase === undefined) {
      throw new WalletError('WALLET_LOCKED', 'The wallet is locked: signing needs the keystore passphrase.', {
        hint: 'CLI: --passphrase-file <owner-only file>, --passphrase-stdin or the prompt; wallet serve: --passphrase-file.',
      });
    }
    return this.passphrase;
  }

  /** The configured networks of every chain, read once from the config file and the environment. */
  networks(): Promise<NetworkSettings> {
    this.settings ??= readConfigFile(this.dataDir)
      .then((config) => resolveNetworks(config, this.env, this.endpointOverrides))
      .catch((error: unknown) => {
        this.settings = undefined;
        throw error;
      });
    return this.settings;
  }
}

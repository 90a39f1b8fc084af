import { homedir } from 'node:os';
import { join } from 'node:path';
import { readConfigFile, type ConfigFile } from './config/config-file.js';
import { resolveDataDir } from '../shared/data-dir.js';
import { MIN_PASSPHRASE_LENGTH } from '../shared/passphrase.js';
import { shownValue } from '../shared/text.js';
import { WalletError } from './errors.js';
import {
  resolveNetworks,
  type EndpointOverride,
  type NetworkSettings,
  type ResolvedNetwork,
} from './config/endpoints.js';
import type { Chain } from './config/networks.js';
import { AddressBook } from './dash/address-book.js';
import type { WalletKeystore } from './keystore/keystore.js';
import { KEYSTORE_DIR_NAME } from './keystore/keystore-format.js';
import { resolvePlatformNetworks, type PlatformNetwork } from './platform/network.js';
import type { AuditRecord } from './policy/audit-log.js';
import { fileStateStore } from './state/files/store.js';
import { shareState, unshareState } from './state/shared.js';
import { resolveStateLocation, type StateLocation } from './state/state-url.js';
import type { LedgerSource, StateStore } from './state/store.js';

export type WalletServicesOptions = {
  /** The data directory; defaults to `$WALLET_HOME` or the platform's. */
  dataDir?: string | undefined;
  env?: Readonly<Record<string, string | undefined>> | undefined;
  endpointOverrides?: readonly EndpointOverride[] | undefined;
  /**
   * The keystore passphrase: given at start (`--passphrase-file`, `--passphrase-stdin`), or asked
   * for when first needed (the CLI's hidden prompt on a terminal). Absent means locked.
   */
  passphrase?: string | PassphraseSource | undefined;
  /**
   * Reconcile what replicas stopped mid-payment left as soon as the state store is first opened,
   * before it is used (a CLI call: it may pay next), and say what that did here (on stderr). A
   * server does it at its start instead ({@link WalletServices.openSharedState}). Nothing with
   * the files backend.
   */
  reconcileWhenOpened?: ((line: string) => void) | undefined;
};

/** Why a passphrase is wanted: to open an existing wallet, or to seal a new one (asked twice). */
export type PassphrasePurpose = 'unlock' | 'new';

/** Supplies the passphrase on demand; resolves `undefined` when it cannot ask (then: locked). */
export type PassphraseSource = (purpose: PassphrasePurpose) => Promise<string | undefined>;

export { MIN_PASSPHRASE_LENGTH } from '../shared/passphrase.js';

/**
 * The wallet's domain services, shared by every tool call of one server. Reads lazily: nothing
 * touches the disk until a tool needs it.
 */
export class WalletServices {
  readonly dataDir: string;
  private readonly env: Readonly<Record<string, string | undefined>>;
  private readonly endpointOverrides: readonly EndpointOverride[];
  private settings: Promise<NetworkSettings> | undefined;
  private config: Promise<ConfigFile> | undefined;
  private readonly passphraseSource: PassphraseSource | undefined;
  private asked: Promise<string | undefined> | undefined;
  private keystoreInstance: (WalletKeystore & { readonly dir: string }) | undefined;
  private addressBookInstance: AddressBook | undefined;
  private store: Promise<StateStore> | undefined;
  private readonly reconcileWhenOpened: ((line: string) => void) | undefined;

  constructor(options: WalletServicesOptions = {}) {
    this.env = options.env ?? process.env;
    this.dataDir = options.dataDir ?? resolveDataDir({ env: this.env, platform: process.platform, home: homedir() });
    this.endpointOverrides = options.endpointOverrides ?? [];
    const given = options.passphrase;
    this.passphraseSource = typeof given === 'string' ? () => Promise.resolve(given) : given;
    this.reconcileWhenOpened = options.reconcileWhenOpened;
  }

  /**
   * The state replicas share (docs/REPLICAS.md): the data directory's files, or the PostgreSQL
   * store `WALLET_STATE_URL` (or config `state.url`) names, opened once (node-postgres is loaded
   * only then). A store that could not be opened is tried again at the next call.
   */
  stateStore(): Promise<StateStore> {
    this.store ??= this.openStateStore().catch((error: unknown) => {
      this.store = undefined;
      throw error;
    });
    return this.store;
  }

  /** Where the state lives when it is not the data directory, or undefined. */
  async stateLocation(): Promise<StateLocation | undefined> {
    return resolveStateLocation(this.env, (await this.configFile()).state);
  }

  /** The spend ledgers the policy counts in, from the state store. */
  readonly ledgers: LedgerSource = {
    ledger: async (chain, name) => (await this.stateStore()).ledger(chain, name),
  };

  /** Appends one line to the audit log of the state store. */
  async appendAudit(record: AuditRecord): Promise<void> {
    await (await this.stateStore()).appendAudit(record);
  }

  /**
   * Opens the state store now when one is set (a server's start: it refuses to start on a store it
   * cannot use, nor a state setting that is wrong: a password in the URL, a password file others
   * can read, an unknown sslmode); with none, nothing is read now (a config file that cannot be read
   * fails the first call that needs it, as before). With a store, the EVM payments a replica left
   * half done are reconciled (evm/reconcile.ts); returns what that did, for stderr.
   */
  async openSharedState(): Promise<string[]> {
    const config = await this.configFile().catch(() => undefined);
    if (config === undefined || !resolveStateLocation(this.env, config.state)) return [];
    const store = await this.stateStore();
    // Done already, as the store opened.
    if (this.reconcileWhenOpened) return [];
    // What a replica that died mid-payment left: reconciled against the chain before serving.
    return this.reconcile(store);
  }

  /** Reconciles the EVM payments stopped replicas left (evm/reconcile.ts); what that did, for stderr. */
  private async reconcile(store: StateStore): Promise<string[]> {
    // The store's rows first: with nothing left (nearly always), neither a node nor the EVM
    // modules are loaded (a CLI call's start).
    if ((await store.toReconcile()).length === 0) return [];
    const { reconcileReservations } = await import('./evm/reconcile.js');
    return (await reconcileReservations(this, store)).map(({ network, committed, released, failed }) =>
      failed === undefined
        ? `state store: on ${network}, ${committed} payment(s) a stopped replica left were found mined (recorded), ${released} never sent (released)`
        : `state store: the payments a stopped replica left on ${network} are not reconciled yet (${failed}); the next start tries again`,
    );
  }

  /** Closes the state store's connections, if it has any (a server that stops). */
  async closeState(): Promise<void> {
    const store = await this.store?.catch(() => undefined);
    this.store = undefined;
    if (store) unshareState(this.dataDir, store);
    await store?.close();
  }

  private async openStateStore(): Promise<StateStore> {
    const location = await this.stateLocation();
    if (!location) return fileStateStore(this.dataDir);
    const { openPgStore } = await import('./state/pg/store.js');
    const store = await openPgStore(location, statedPolicies(await this.configFile()), this.dataDir);
    // The passkeys and the approval page, handed the data directory only, find the store there.
    shareState(this.dataDir, store);
    if (this.reconcileWhenOpened) {
      // A reconciliation that fails (a node down) leaves it for the next opening: the call goes on.
      const said = await this.reconcile(store).catch((error: unknown) => [
        `state store: the payments stopped replicas left are not reconciled yet (${error instanceof Error ? error.message : String(error)})`,
      ]);
      for (const line of said) this.reconcileWhenOpened(line);
    }
    return store;
  }

  /**
   * The encrypted keystore, from the state store: the data directory's files, or the rows of the
   * PostgreSQL store (ciphertext only; a replica with an empty data directory serves its wallets).
   */
  get keystore(): WalletKeystore & { readonly dir: string } {
    this.keystoreInstance ??= {
      ...keystoreOf(async () => (await this.stateStore()).keystore),
      // The data directory's keystore folder (the files backend's records).
      dir: join(this.dataDir, KEYSTORE_DIR_NAME),
    };
    return this.keystoreInstance;
  }

  /** The Dash addresses each wallet's xpub derives, cached. */
  get addressBook(): AddressBook {
    this.addressBookInstance ??= new AddressBook(this.dataDir);
    return this.addressBookInstance;
  }

  /**
   * The passphrase that unlocks (or, for `new`, seals) the keystore, asked for at most once per
   * server; `WALLET_LOCKED` when none was given and none can be asked for.
   */
  async passphrase(purpose: PassphrasePurpose): Promise<string> {
    this.asked ??= this.passphraseSource?.(purpose) ?? Promise.resolve(undefined);
    const passphrase = await this.asked.catch((error: unknown) => {
      this.asked = undefined;
      throw error;
    });
    if (passphrase === undefined || passphrase === '') {
      this.asked = undefined;
      throw new WalletError('WALLET_LOCKED', 'The wallet is locked: this needs the keystore passphrase.', {
        hint: 'Start the wallet with the keystore passphrase: `passphrase_file` (an owner-only file), `passphrase_stdin`, or the prompt on a terminal.',
      });
    }
    if (purpose === 'new' && passphrase.length < MIN_PASSPHRASE_LENGTH) {
      throw new WalletError(
        'INVALID_PARAM',
        `The keystore passphrase must have at least ${MIN_PASSPHRASE_LENGTH} characters.`,
      );
    }
    return passphrase;
  }

  /** The resolved settings of one network of a chain (the chain's default when `network` is undefined). */
  async network(chain: Chain, network: string | undefined): Promise<ResolvedNetwork> {
    const settings = await this.networks();
    const name = network ?? settings.defaults[chain];
    const found = settings.networks.find((entry) => entry.chain === chain && entry.network === name);
    if (!found) {
      const known = settings.networks.filter((entry) => entry.chain === chain).map((entry) => entry.network);
      throw new WalletError('INVALID_PARAM', `Unknown ${chain} network ${shownValue(name)}.`, {
        hint: `Known ${chain} networks: ${known.join(', ')}. Another is added to config.json as ${chain}.networks.<name>.url${chain === 'evm' ? ' (with its chain_id)' : ''}.`,
      });
    }
    return found;
  }

  /** The config file's `default_wallet`, if it names one. */
  async defaultWallet(): Promise<string | undefined> {
    return (await this.configFile()).default_wallet;
  }

  /**
   * Whether a client's form-elicitation yes approves a call of `wallet serve` reached over this
   * transport: config `approvals.trust_elicitation`, `stdio` by default (a client the owner's own
   * agent host started; over HTTP the bearer token sits in the agent's configuration, so an agent
   * that can run code would be its own "human"). Never once a passkey is enrolled: then a yes is a
   * passkey assertion on the approval page, and a client's answer approves nothing.
   */
  async trustsElicitation(transport: 'stdio' | 'http'): Promise<boolean> {
    const trust = (await this.configFile()).approvals?.trust_elicitation ?? 'stdio';
    if (!(trust === 'always' || (trust === 'stdio' && transport === 'stdio'))) return false;
    // The passkeys of the state store: the files', or the store's every replica shares, read now
    // (a passkey another replica enrolled a moment ago ends the trust in a client's answer at once).
    return !(await (await this.stateStore()).passkeys.enrolledNow());
  }

  /** Where `wallet serve` on stdio serves the approval page: config `approvals.page.listen`, if set. */
  async approvalPageListen(): Promise<string | undefined> {
    return (await this.configFile()).approvals?.page?.listen;
  }

  /** The config file, read once. */
  private configFile(): Promise<ConfigFile> {
    this.config ??= readConfigFile(this.dataDir).catch((error: unknown) => {
      this.config = undefined;
      throw error;
    });
    return this.config;
  }

  /** Dash Platform's networks (`platform` in config.json), which the Platform tools read. */
  async platformNetworks(): Promise<PlatformNetwork[]> {
    return resolvePlatformNetworks(await this.configFile());
  }

  /** The configured networks of every chain, read once from the config file and the environment. */
  networks(): Promise<NetworkSettings> {
    this.settings ??= this.configFile()
      .then((config) => resolveNetworks(config, this.env, this.endpointOverrides))
      .catch((error: unknown) => {
        this.settings = undefined;
        throw error;
      });
    return this.settings;
  }
}

/** A keystore whose every call goes to the one `opened` resolves to (the state store's, opened at first use). */
function keystoreOf(opened: () => Promise<WalletKeystore>): WalletKeystore {
  return {
    list: async () => (await opened()).list(),
    listImportedKeys: async () => (await opened()).listImportedKeys(),
    resolve: async (walletId) => (await opened()).resolve(walletId),
    create: async (wallet) => (await opened()).create(wallet),
    unlock: async (entry, passphrase) => (await opened()).unlock(entry, passphrase),
    reserve: async (entry, chain, count) => (await opened()).reserve(entry, chain, count),
    advance: async (entry, next) => (await opened()).advance(entry, next),
    addEvmAccount: async (entry, request) => (await opened()).addEvmAccount(entry, request),
    addImportedKey: async (key) => (await opened()).addImportedKey(key),
    unlockImportedKey: async (key, passphrase) => (await opened()).unlockImportedKey(key, passphrase),
    checkPassphrase: async (passphrase) => (await opened()).checkPassphrase(passphrase),
    changePassphrase: async (current, next, only) => (await opened()).changePassphrase(current, next, only),
    withAccountLock: async (address, task) => (await opened()).withAccountLock(address, task),
    withWalletLock: async (entry, task) => (await opened()).withWalletLock(entry, task),
    remove: async (entry) => (await opened()).remove(entry),
  };
}

/** Each network's policy as config.json states it, under its config path, for the store to compare. */
export function statedPolicies(config: ConfigFile): { key: string; policy: unknown }[] {
  const stated: { key: string; policy: unknown }[] = [];
  for (const [name, network] of Object.entries(config.core?.networks ?? {})) {
    if (network?.policy) stated.push({ key: `core.networks.${name}.policy`, policy: network.policy });
  }
  for (const [name, network] of Object.entries(config.evm?.networks ?? {})) {
    if (network.policy) stated.push({ key: `evm.networks.${name}.policy`, policy: network.policy });
  }
  return stated;
}

import { parseEndpointOverride } from '../domain/config/endpoints.js';
import { WalletError } from '../domain/errors.js';
import { WalletServices } from '../domain/services.js';
import type { Profile } from '../shared/profiles.js';
import { toolDefinitionDocument, type ToolDefinitionDocument } from '../shared/function-catalogue.js';
import { packageInfo } from '../shared/package-info.js';
import { profileFunctions, servedTools } from '../tools/index.js';
import { Confirmations } from './confirmation.js';
import { createLogger, type LogLevel } from './logger.js';
import type { WalletServerOptions } from './server.js';
import { UsageError } from '../shared/usage-error.js';

/** What a surface (the CLI, `wallet serve`) decides about the server it runs. */
export type WalletServerSetup = {
  /** Serve the tools that reveal or accept secrets: the in-process CLI server only. */
  localOnly: boolean;
  /** Serve only read-only tools. */
  readOnly: boolean;
  /** How tools/list shows the tools (`default` when not given). */
  profile?: Profile | undefined;
  env?: Readonly<Record<string, string | undefined>> | undefined;
  /** `<chain>.<network>=<url>` endpoint overrides, as given on the command line. */
  endpoints?: readonly string[] | undefined;
  /** The keystore passphrase, or a function that asks for it when a tool first needs it. */
  passphrase?: string | ((purpose: 'unlock' | 'new') => Promise<string | undefined>) | undefined;
  logLevel?: LogLevel | undefined;
  /** Tells the owner something on the server's stderr (the approval page's links). */
  announce?: ((line: string) => void) | undefined;
  /** Who calls the tools: `owner` for the local CLI (it asks on its terminal), `agent` for `wallet serve`. */
  caller: 'owner' | 'agent';
};

/** The tools, services and logger of one server, from a surface's setup. */
export function walletServerOptions(setup: WalletServerSetup): WalletServerOptions {
  let endpointOverrides;
  try {
    endpointOverrides = (setup.endpoints ?? []).map(parseEndpointOverride);
  } catch (error) {
    if (error instanceof WalletError) throw new UsageError(`--endpoint: ${error.message}`, error.hint);
    throw error;
  }
  const services = new WalletServices({
    env: setup.env,
    endpointOverrides,
    passphrase: setup.passphrase,
    // The CLI's call reconciles what stopped replicas left when it first opens a state store (a
    // server does at its start): it may pay next.
    ...(setup.caller === 'owner' ? { reconcileWhenOpened: setup.announce ?? (() => undefined) } : {}),
  });
  return {
    catalogue: servedTools({ localOnly: setup.localOnly, readOnly: setup.readOnly, profile: setup.profile }),
    services,
    logger: createLogger(setup.logLevel ?? 'off'),
    // With a PostgreSQL store, the questions' key and the spent ones are the store's: any replica verifies.
    confirmations: new Confirmations(async () => (await services.stateStore()).questions),
    caller: setup.caller === 'owner' ? 'terminal' : 'agent',
  };
}

/**
 * The function-calling document of the tools `wallet serve` serves with these flags, as its
 * tools/list shows them (what `wallet --get-tool-definition` prints), without starting a server.
 */
export function servedToolDefinitions(options: { readOnly: boolean; profile: Profile }): ToolDefinitionDocument {
  const { name, description } = packageInfo();
  const catalogue = servedTools({ localOnly: false, readOnly: options.readOnly, profile: options.profile });
  return toolDefinitionDocument({ name, description }, profileFunctions(catalogue.list(), options.profile));
}

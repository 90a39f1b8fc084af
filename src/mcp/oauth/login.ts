import {
  auth,
  computeScopeUnion,
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
  type AuthProvider,
  type FetchLike,
  type AuthOptions,
  type InsufficientScopeError,
  IssuerMismatchError,
  withDpop,
  type OAuthClientProvider,
  validateClientMetadataUrl,
} from '@modelcontextprotocol/client';
import { boundedFetch, LOGIN_REQUEST_TIMEOUT_MS } from './bounded-fetch.js';
import { dpopSession } from './dpop.js';
import { AuthorizationServerChanged, LoginFailedError, LoginRequiredError } from './errors.js';
import { listenForRedirect, type LoopbackRedirect } from './loopback.js';
import { isMachine, LoginNeeded, sameIssuer, WalletOAuthProvider } from './provider.js';
import type { IdentityProvider, OAuthRecord, OAuthStore } from './store.js';

/** How a login reaches the person at the keyboard; the CLI supplies it. */
export type LoginPrompt = {
  /** A browser login may start now (a terminal is there, or `$BROWSER` plays the browser). */
  readonly interactive: boolean;
  /** What to run to log in, for the error when a login is needed and cannot start here. */
  readonly loginCommand: string;
  /**
   * Shows the authorization URL, opens a browser, and resolves with the query of the redirect:
   * the one `redirect` receives, or a redirect URL the person pastes.
   */
  authorize(url: URL, redirect: LoopbackRedirect): Promise<URLSearchParams>;
};

export type LoginOptions = {
  scope?: string | undefined;
  resourceMetadataUrl?: URL | undefined;
  fetchFn?: FetchLike | undefined;
  /** How long each request to an identity provider may take (the run's `--timeout`; default 60 s). */
  timeoutMs?: number | undefined;
  /** A client registered beforehand with the authorization server (no dynamic registration). */
  client?: { client_id: string; client_secret?: string | undefined } | undefined;
  /** `client_credentials`: a machine client, no browser (needs `client`). */
  machine?: boolean | undefined;
  /** A workload identity token's file: a machine client with the JWT-bearer grant (needs `client`). */
  assertionFile?: string | undefined;
  /**
   * Enterprise-managed authorization (SEP-990): the enterprise ID token's file and the identity
   * provider that exchanges it for an ID-JAG, the client's JWT-bearer grant (needs `client`).
   */
  enterprise?: { idTokenFile: string; idp: IdentityProvider } | undefined;
  /** A PEM private key the client authenticates with (`private_key_jwt`), kept for later logins. */
  clientKey?: string | undefined;
  /** The https URL of a client metadata document (CIMD), kept for later logins. */
  clientMetadataUrl?: string | undefined;
  /**
   * A `servers login` the user ran: the client's credentials may go to the authorization server
   * the MCP server names now. A login a call starts by itself keeps them to the login's issuer.
   */
  newLogin?: boolean | undefined;
};

/**
 * Logs in to the MCP server at `serverUrl` and stores the tokens: a client-credentials grant for a
 * machine client, else the authorization-code flow with PKCE in a browser that comes back to a
 * loopback listener. Everything OAuth (discovery and its fallbacks, registration, scope
 * selection, `iss`, resource indicators) is the SDK's `auth()`.
 */
export async function login(
  store: OAuthStore,
  prompt: LoginPrompt,
  serverUrl: URL,
  options: LoginOptions = {},
): Promise<void> {
  const { scope, resourceMetadataUrl } = options;
  // A run's session passes its own bounded fetch; `servers login` gets the default bound.
  const fetchFn = options.fetchFn ?? boundedFetch(fetch, LOGIN_REQUEST_TIMEOUT_MS);
  const newLogin = options.newLogin === true;
  if (options.clientMetadataUrl !== undefined) validateClientMetadataUrl(options.clientMetadataUrl);
  if (options.client || options.clientMetadataUrl !== undefined) {
    const { client, clientKey, clientMetadataUrl } = options;
    // A new login's client replaces the stored one; a client id and a metadata URL given together
    // are both kept: the client id is used, the metadata URL once that client is refused.
    await store.update((record) => ({
      server: record.server,
      ...(client
        ? {
            client,
            ...(clientKey === undefined ? {} : { clientKey }),
            registration: 'pre-registered' as const,
            ...(options.enterprise !== undefined
              ? { grant: 'id_jag' as const, ...options.enterprise }
              : options.assertionFile !== undefined
                ? { grant: 'jwt_bearer' as const, assertionFile: options.assertionFile }
                : { grant: options.machine ? ('client_credentials' as const) : ('authorization_code' as const) }),
          }
        : {}),
      ...(clientMetadataUrl === undefined ? {} : { clientMetadataUrl }),
    }));
  }
  const record = await store.read();
  if (isMachine(record)) {
    const provider = new WalletOAuthProvider(store, record, { kind: 'silent', newLogin, timeoutMs: options.timeoutMs });
    const result = await authorize(provider, authOptions({ serverUrl, scope, resourceMetadataUrl, fetchFn }));
    if (result !== 'AUTHORIZED')
      throw new LoginFailedError('The authorization server gave the machine client no token.');
    return;
  }
  const registered = record.redirectUrl;
  const redirect = await listenForRedirect(registered ? Number(new URL(registered).port) || undefined : undefined);
  try {
    const stale = record.registration !== 'pre-registered' && record.client && registered !== redirect.redirectUrl;
    // A client registered for another port, now taken, is registered again for this one.
    await store.update((current) => ({
      ...current,
      redirectUrl: redirect.redirectUrl,
      ...(stale ? { client: undefined } : {}),
    }));
    let answer: URLSearchParams | undefined;
    const provider = new WalletOAuthProvider(store, record, {
      kind: 'browser',
      newLogin,
      timeoutMs: options.timeoutMs,
      redirectUrl: redirect.redirectUrl,
      onRedirect: async (url) => {
        answer = await prompt.authorize(url, redirect);
      },
    });
    const base = { serverUrl, scope, resourceMetadataUrl, fetchFn };
    const first = await authorize(provider, authOptions({ ...base, forceReauthorization: true }));
    if (first === 'AUTHORIZED') return;
    if (!answer) throw new LoginFailedError('The browser never came back to the wallet CLI.');
    if (answer.get('state') !== provider.expectedState) {
      throw new LoginFailedError('The redirect carried the state of another login; nothing was stored.');
    }
    const code = answer.get('code');
    // The error fields of a redirect are the authorization server's (or an attacker's) words:
    // not shown (RFC 9207 §4).
    if (!code) throw new LoginFailedError('The authorization server sent no code back: the login was refused.');
    const result = await authorize(
      provider,
      authOptions({ ...base, authorizationCode: code, iss: answer.get('iss') ?? undefined }),
    );
    if (result !== 'AUTHORIZED') throw new LoginFailedError('The authorization server did not grant a token.');
    if (scope) await store.update((current) => ({ ...current, scope: computeScopeUnion(scope, current.scope) }));
  } finally {
    await redirect.close();
  }
}

/**
 * The bearer token of a session's requests, from the store. On a 401 it first does what needs
 * nobody, holding the server's lock across processes: adopt a token another process has just
 * stored, or spend the refresh token (once), or ask for a client-credentials token; only then
 * a browser login, where one may start.
 */
export class OAuthSessionAuth implements AuthProvider {
  private sent: string | undefined;

  /** `timeoutMs`: how long each request of a refresh or login may take (the run's `--timeout`). */
  constructor(
    private readonly store: OAuthStore,
    private readonly prompt: LoginPrompt,
    private readonly serverUrl: URL,
    private readonly timeoutMs = LOGIN_REQUEST_TIMEOUT_MS,
  ) {}

  async token(): Promise<string | undefined> {
    this.sent = (await this.store.read()).tokens?.access_token;
    return this.sent;
  }

  /**
   * `next` with DPoP (RFC 9449) for the MCP server's own requests: a DPoP-bound token goes with
   * the `DPoP` scheme and a fresh proof, and a `use_dpop_nonce` challenge is answered once. Other
   * URLs (the authorization server's) pass untouched: an access token is never sent there.
   */
  resourceFetch(next: FetchLike): FetchLike {
    const signed = withDpop(
      () => dpopSession(this.store),
      async () => {
        const tokens = (await this.store.read()).tokens;
        return tokens?.token_type.toLowerCase() === 'dpop' ? tokens.access_token : undefined;
      },
    )(next);
    const resource = `${this.serverUrl.origin}${this.serverUrl.pathname}`;
    return (input, init) => {
      const url = new URL(String(input));
      return `${url.origin}${url.pathname}` === resource ? signed(input, init) : next(input, init);
    };
  }

  async onUnauthorized(context: Parameters<NonNullable<AuthProvider['onUnauthorized']>>[0]): Promise<void> {
    const { resourceMetadataUrl, scope } = extractWWWAuthenticateParams(context.response);
    const fetchFn = boundedFetch(context.fetchFn, this.timeoutMs);
    if (await this.silently(resourceMetadataUrl, scope, fetchFn)) return;
    await this.loginOrExplain({ scope, resourceMetadataUrl, fetchFn, timeoutMs: this.timeoutMs });
  }

  /** After a 403 `insufficient_scope`: log in again for the scopes held plus those asked for. */
  async stepUp(challenge: InsufficientScopeError): Promise<void> {
    const record = await this.store.read();
    const scope = computeScopeUnion(record.scope, record.tokens?.scope, challenge.requiredScope);
    await this.loginOrExplain({
      scope,
      resourceMetadataUrl: challenge.resourceMetadataUrl,
      fetchFn: boundedFetch(fetch, this.timeoutMs),
      timeoutMs: this.timeoutMs,
    });
  }

  private async silently(resourceMetadataUrl: URL | undefined, scope: string | undefined, fetchFn: FetchLike) {
    // Asked before the lock (a network round trip holds nobody up): a refused token is most often
    // an expired one, and the authorization server stays the one discovered at login.
    const moved = await this.authorizationServerMoved(await this.store.read(), resourceMetadataUrl, fetchFn);
    return this.store.withLock(async () => {
      const record = await this.store.read();
      const stored = record.tokens?.access_token;
      if (stored !== undefined && stored !== this.sent) return true;
      // The MCP server now names another authorization server (SEP-2352): the refresh or login
      // discovers it again; a client and tokens of the old issuer are then dropped by `auth()`,
      // and a client given to `servers login` goes nowhere (the provider stops the flow).
      if (moved) await this.store.update((current) => ({ ...current, discovery: undefined }));
      const machine = isMachine(record);
      if (!machine && (record.tokens?.refresh_token === undefined || record.client === undefined)) return false;
      const provider = new WalletOAuthProvider(this.store, record, { kind: 'silent', timeoutMs: this.timeoutMs });
      try {
        const result = await authorize(
          provider,
          authOptions({ serverUrl: this.serverUrl, resourceMetadataUrl, scope, fetchFn }),
        );
        return result === 'AUTHORIZED';
      } catch (error) {
        if (error instanceof LoginNeeded) return false;
        throw this.explained(error);
      }
    });
  }

  /**
   * Whether the server's resource metadata (RFC 9728) no longer lists the authorization server
   * of the cached discovery. Metadata that cannot be read moves nothing: the 2025-03-26 era has
   * none, and a server that is down is no reason to forget where its login was made.
   */
  private async authorizationServerMoved(
    record: OAuthRecord,
    resourceMetadataUrl: URL | undefined,
    fetchFn: FetchLike,
  ): Promise<boolean> {
    const cached = record.discovery;
    if (cached === undefined || record.tokens === undefined) return false;
    const known = cached.resourceMetadataUrl;
    const metadataUrl = resourceMetadataUrl ?? (known === undefined ? undefined : new URL(known));
    const published = await discoverOAuthProtectedResourceMetadata(
      this.serverUrl,
      metadataUrl ? { resourceMetadataUrl: metadataUrl } : {},
      fetchFn,
    ).catch(() => undefined);
    const servers = published?.authorization_servers;
    if (servers === undefined || servers.length === 0) return false;
    const current = String(cached.authorizationServerUrl);
    return !servers.some((server) => sameIssuer(String(new URL(server)), current) || sameIssuer(server, current));
  }

  /** An authorization server other than the login's: what to run, in the CLI's words. */
  private explained(error: unknown): unknown {
    if (!(error instanceof AuthorizationServerChanged)) return error;
    return new LoginRequiredError(
      `the server now names another authorization server than the one its login was made at, and the client's credentials are not sent there: run ${this.prompt.loginCommand}`,
      { cause: error },
    );
  }

  private async loginOrExplain(options: LoginOptions): Promise<void> {
    if (!this.prompt.interactive) {
      throw new LoginRequiredError(
        `the server answered HTTP 401 and wants an OAuth login: run ${this.prompt.loginCommand}`,
      );
    }
    await login(this.store, this.prompt, this.serverUrl, options).catch((error: unknown) => {
      throw this.explained(error);
    });
  }
}

/**
 * The SDK's `auth()`, with one fallback of the 2025-03-26 era: a server that publishes no protected
 * resource metadata has its authorization server on its own origin, where the metadata's `issuer`
 * may carry a path the well-known URL does not (RFC 8414 §3.3 would refuse it). There the issuer
 * is taken as published, only for the server's own origin: a mix-up needs a second server.
 */
async function authorize(provider: OAuthClientProvider, options: AuthOptions): Promise<'AUTHORIZED' | 'REDIRECT'> {
  try {
    return await auth(provider, options);
  } catch (error) {
    if (!(error instanceof IssuerMismatchError) || error.kind !== 'metadata') throw error;
    const serverUrl = new URL(options.serverUrl);
    if (error.received === undefined || new URL(error.received).origin !== serverUrl.origin) throw error;
    const published = await discoverOAuthProtectedResourceMetadata(
      serverUrl,
      options.resourceMetadataUrl ? { resourceMetadataUrl: options.resourceMetadataUrl } : {},
      options.fetchFn,
    ).catch(() => undefined);
    if (published) throw error;
    return auth(provider, { ...options, skipIssuerMetadataValidation: true });
  }
}

/** `auth()`'s options without the unset ones (its types say absent, not undefined). */
function authOptions(options: { [K in keyof AuthOptions]: AuthOptions[K] | undefined }): AuthOptions {
  return Object.fromEntries(
    Object.entries(options).filter(([, value]) => value !== undefined),
  ) as unknown as AuthOptions;
}

import { randomBytes } from 'node:crypto';
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  OAuthDiscoveryState,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { packageInfo } from '../../shared/package-info.js';
import type { OAuthStore } from './store.js';

/** Thrown where a login would need a browser and none may be opened now. */
export class LoginNeeded extends Error {
  override name = 'LoginNeeded';
}

export type ProviderMode =
  /** A person logs in: the authorization URL goes to `onRedirect`, which waits for the redirect. */
  | { kind: 'browser'; redirectUrl: string; onRedirect: (url: URL) => Promise<void> }
  /** Only what needs nobody: a refresh, or a client-credentials token. */
  | { kind: 'silent' };

/**
 * The SDK's `OAuthClientProvider` over the wallet's {@link OAuthStore}: the SDK's `auth()` does
 * discovery, registration, PKCE, `iss` checks, resource indicators, scope selection and refresh;
 * this class only keeps what it hands over and says how to reach a person.
 */
export class WalletOAuthProvider implements OAuthClientProvider {
  private verifier: string | undefined;
  readonly expectedState = randomBytes(16).toString('base64url');

  constructor(
    private readonly store: OAuthStore,
    private readonly machine: boolean,
    private readonly mode: ProviderMode,
  ) {}

  get redirectUrl(): string | undefined {
    if (this.machine) return undefined;
    // A refresh needs no redirect, but an undefined one would mean a machine client to the SDK.
    return this.mode.kind === 'browser' ? this.mode.redirectUrl : 'http://127.0.0.1/callback';
  }

  get clientMetadata(): OAuthClientMetadata {
    const redirect = this.redirectUrl;
    return {
      client_name: `${packageInfo().name} CLI`,
      redirect_uris: redirect ? [redirect] : [],
      ...(this.machine
        ? { grant_types: ['client_credentials'] }
        : { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }),
    };
  }

  state(): string {
    return this.expectedState;
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    return (await this.store.read()).client;
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    await this.store.update((record) => ({
      ...record,
      client,
      registration: record.registration === 'pre-registered' ? 'pre-registered' : 'dynamic',
    }));
  }

  async tokens(): Promise<StoredOAuthTokens | undefined> {
    return (await this.store.read()).tokens;
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    const expiresAt = typeof tokens.expires_in === 'number' ? Date.now() + tokens.expires_in * 1000 : undefined;
    await this.store.update((record) => ({
      ...record,
      // A refresh answer without a new refresh token keeps the old one (RFC 6749 §6).
      tokens: { ...tokens, refresh_token: tokens.refresh_token ?? record.tokens?.refresh_token },
      expiresAt,
      ...(tokens.scope ? { scope: tokens.scope } : {}),
    }));
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    if (this.mode.kind !== 'browser') throw new LoginNeeded('This server needs a login in a browser.');
    await this.mode.onRedirect(authorizationUrl);
  }

  saveCodeVerifier(codeVerifier: string): void {
    // The redirect comes back to this same process: the verifier never needs to touch a disk.
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('No PKCE code verifier: the login did not start here.');
    return this.verifier;
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    if (scope === 'verifier') {
      this.verifier = undefined;
      return;
    }
    await this.store.update((record) => ({
      ...record,
      ...(scope === 'all' || scope === 'client' ? { client: undefined } : {}),
      ...(scope === 'all' || scope === 'tokens' ? { tokens: undefined, expiresAt: undefined } : {}),
      ...(scope === 'all' || scope === 'discovery' ? { discovery: undefined } : {}),
    }));
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.store.update((record) => ({ ...record, discovery }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.store.read()).discovery;
  }
}

import { createPrivateKey, randomBytes } from 'node:crypto';
import { open, readFile } from 'node:fs/promises';
import {
  createPrivateKeyJwtAuth,
  discoverAndRequestJwtAuthGrant,
  requestJwtAuthorizationGrant,
  type DpopSession,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import { packageInfo } from '../../shared/package-info.js';
import { boundedFetch, isTimeout, LOGIN_REQUEST_TIMEOUT_MS } from './bounded-fetch.js';
import { dpopSession } from './dpop.js';
import { AuthorizationServerChanged, LoginFailedError } from './errors.js';
import type { IdentityProvider, OAuthRecord, OAuthStore } from './store.js';

/** Thrown where a login would need a browser and none may be opened now. */
export class LoginNeeded extends Error {
  override name = 'LoginNeeded';
}

/**
 * How a flow reaches a person. `newLogin`: a `servers login` the user ran, which may take the
 * client's credentials to the authorization server the MCP server names now; any other flow
 * keeps them to the login's issuer.
 */
export type ProviderMode =
  /** A person logs in: the authorization URL goes to `onRedirect`, which waits for the redirect. */
  (
    | { kind: 'browser'; redirectUrl: string; onRedirect: (url: URL) => Promise<void>; newLogin?: boolean }
    /** Only what needs nobody: a refresh, or a client-credentials token. */
    | { kind: 'silent'; newLogin?: boolean }
  ) & {
    /**
     * How long each request to the identity provider may take (the run's `--timeout`). Its exchange
     * uses a plain fetch of its own: the flow's adds the MCP server's request headers to requests
     * for that server's origin, and an identity provider is another party even there.
     */
    timeoutMs?: number | undefined;
  };

/**
 * The SDK's `OAuthClientProvider` over the wallet's {@link OAuthStore}: the SDK's `auth()` does
 * discovery, registration, PKCE, `iss` checks, resource indicators, scope selection and refresh;
 * this class only keeps what it hands over and says how to reach a person.
 */
export class WalletOAuthProvider implements OAuthClientProvider {
  private verifier: string | undefined;
  private readonly machine: boolean;
  private readonly assertionFile: string | undefined;
  /** `id_jag`: the enterprise ID token's file and the identity provider that exchanges it. */
  private readonly enterprise: { idTokenFile: string; idp: IdentityProvider } | undefined;
  /** The issuer and the resource `auth()` discovered: the ID-JAG's audience and resource. */
  private issuer: string | undefined;
  private resource: string | undefined;
  /** The issuer the client's own credentials are for, when this flow must not take them elsewhere. */
  private readonly boundIssuer: string | undefined;
  /** The workload tokens this flow presented: the SDK's retry after `invalid_grant` must not resend one. */
  private readonly presented = new Set<string>();
  /** An https URL of this client's metadata document (CIMD), used where the server supports them. */
  readonly clientMetadataUrl?: string;
  /** `private_key_jwt` (RFC 7523): the client proves itself with a signed assertion, no secret sent. */
  readonly addClientAuthentication?: ReturnType<typeof createPrivateKeyJwtAuth>;
  readonly expectedState = randomBytes(16).toString('base64url');

  /** `record`: the server's stored login as the flow starts (the client's kind, key and CIMD URL). */
  constructor(
    private readonly store: OAuthStore,
    record: OAuthRecord,
    private readonly mode: ProviderMode,
  ) {
    this.machine = isMachine(record);
    this.assertionFile = record.grant === 'jwt_bearer' ? record.assertionFile : undefined;
    this.enterprise =
      record.grant === 'id_jag' && record.idTokenFile !== undefined && record.idp !== undefined
        ? { idTokenFile: record.idTokenFile, idp: record.idp }
        : undefined;
    // A client given to `servers login` (an id, a secret, a key, a workload's token) belongs to the
    // authorization server it was given for; a client this CLI registered is the SDK's to rebind.
    const ownCredentials = this.machine || record.registration === 'pre-registered' || record.clientKey !== undefined;
    this.boundIssuer =
      ownCredentials && !mode.newLogin ? (record.issuer ?? record.tokens?.issuer ?? record.client?.issuer) : undefined;
    if (record.clientMetadataUrl !== undefined) this.clientMetadataUrl = record.clientMetadataUrl;
    const clientId = record.client?.client_id;
    if (record.clientKey !== undefined && clientId !== undefined) {
      this.addClientAuthentication = createPrivateKeyJwtAuth({
        issuer: clientId,
        subject: clientId,
        privateKey: record.clientKey,
        alg: signingAlgorithm(record.clientKey),
      });
    }
  }

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
        ? { grant_types: [this.assertionFile === undefined && !this.enterprise ? 'client_credentials' : JWT_BEARER] }
        : { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] }),
    };
  }

  /** Where `auth()` found the authorization server: the audience of an ID-JAG. */
  saveAuthorizationServerUrl(issuer: string): void {
    this.issuer = issuer;
  }

  /** The MCP server's resource identifier (RFC 9728), as `auth()` sends it: the ID-JAG's resource. */
  saveResourceUrl(resource: string): void {
    this.resource = resource;
  }

  /**
   * A machine client asks for its token with the client-credentials grant, or with the workload's
   * token as a JWT-bearer grant (RFC 7523 §2.1), read from its file now: such tokens rotate. An
   * enterprise client's grant is an ID-JAG, exchanged now for the ID token of its file.
   */
  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    if (!this.machine) return undefined;
    if (this.enterprise) return this.idJagRequest(this.enterprise, scope);
    if (this.assertionFile === undefined) {
      const params = new URLSearchParams({ grant_type: 'client_credentials' });
      if (scope) params.set('scope', scope);
      return params;
    }
    const assertion = await readAssertion(this.assertionFile);
    // A refused workload token stays refused (expired, another audience): say so, do not retry it.
    if (this.presented.has(assertion)) {
      throw new LoginFailedError(
        `the authorization server refused the workload token of ${this.assertionFile} (expired, or for another audience)`,
      );
    }
    this.presented.add(assertion);
    const params = new URLSearchParams({ grant_type: JWT_BEARER, assertion });
    if (scope) params.set('scope', scope);
    return params;
  }

  /**
   * Enterprise-managed authorization (SEP-990): the ID token goes to the identity provider (RFC
   * 8693 token exchange, the SDK's) for an ID-JAG whose audience is this authorization server and
   * whose resource is this MCP server; the ID-JAG is the JWT-bearer grant. Neither is kept.
   */
  private async idJagRequest(
    { idTokenFile, idp }: { idTokenFile: string; idp: IdentityProvider },
    scope: string | undefined,
  ): Promise<URLSearchParams> {
    if (this.issuer === undefined || this.resource === undefined) {
      throw new LoginFailedError(
        'the MCP server publishes no protected resource metadata (RFC 9728): an ID-JAG needs its resource and authorization server',
      );
    }
    const idToken = await readIdToken(idTokenFile);
    // A refused ID-JAG stays refused for that ID token (expired, another client): do not exchange it again.
    if (this.presented.has(idToken)) {
      throw new LoginFailedError(
        `the authorization server refused the grant for the ID token of ${idTokenFile} (expired, or for another client)`,
      );
    }
    this.presented.add(idToken);
    const exchange = {
      audience: this.issuer,
      resource: this.resource,
      idToken,
      clientId: idp.clientId,
      ...(idp.clientSecret === undefined ? {} : { clientSecret: idp.clientSecret }),
      ...(scope ? { scope } : {}),
    };
    let grant: string;
    try {
      const fetchFn = boundedFetch(fetch, this.mode.timeoutMs ?? LOGIN_REQUEST_TIMEOUT_MS);
      const result =
        'tokenEndpoint' in idp
          ? await requestJwtAuthorizationGrant({ ...exchange, tokenEndpoint: idp.tokenEndpoint, fetchFn })
          : await discoverAndRequestJwtAuthGrant({ ...exchange, idpUrl: idp.issuer, fetchFn });
      grant = result.jwtAuthGrant;
    } catch (error) {
      const said = exchangeFailure(error, [idToken, idp.clientSecret]);
      throw new LoginFailedError(
        `the identity provider did not exchange the ID token of ${idTokenFile} for a grant (${said})`,
        { cause: error },
      );
    }
    const params = new URLSearchParams({ grant_type: JWT_BEARER, assertion: grant });
    if (scope) params.set('scope', scope);
    return params;
  }

  state(): string {
    return this.expectedState;
  }

  /**
   * The stored client, asked by `auth()` once discovery named the authorization server and before
   * anything is sent to it: where that is not the issuer of the login, the flow stops here, before
   * a secret, a signed assertion or a workload's token could go to it.
   */
  async clientInformation(context?: OAuthClientInformationContext): Promise<StoredOAuthClientInformation | undefined> {
    if (this.boundIssuer !== undefined && context !== undefined && !sameIssuer(this.boundIssuer, context.issuer)) {
      throw new AuthorizationServerChanged('the MCP server names another authorization server than its login');
    }
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
      // The issuer of the grant (the SDK stamps it): a client's credentials go to no other.
      issuer: tokens.issuer ?? record.issuer,
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

  /** DPoP-bound tokens where the authorization server offers them (the SDK signs the proofs). */
  dpop(): Promise<DpopSession | undefined> {
    return dpopSession(this.store);
  }

  async saveDiscoveryState(discovery: OAuthDiscoveryState): Promise<void> {
    await this.store.update((record) => ({ ...record, discovery }));
  }

  async discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return (await this.store.read()).discovery;
  }
}

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/** RFC 8414 issuers, with the SDK's one tolerance: a single trailing slash. */
export function sameIssuer(a: string, b: string): boolean {
  return a === b || a === `${b}/` || b === `${a}/`;
}

/** A client that gets its tokens with no person: client credentials, a workload's or an ID token. */
export function isMachine(record: OAuthRecord): boolean {
  return record.grant === 'client_credentials' || record.grant === 'jwt_bearer' || record.grant === 'id_jag';
}

/** The workload's token (a JWT) from its file; the message names the file, never its content. */
async function readAssertion(path: string): Promise<string> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  const token = text?.trim();
  if (!token || token.split('.').length !== 3) {
    throw new LoginFailedError(`the workload token file ${path} is missing, empty or holds no JWT`);
  }
  return token;
}

/**
 * The enterprise ID token (a JWT) from its file, which must stay owner-only: a token others can
 * read is a leaked sign-in. The message names the file, never its content.
 */
async function readIdToken(path: string): Promise<string> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (handle === undefined) throw new LoginFailedError(`the ID token file ${path} cannot be read`);
  try {
    const { mode } = await handle.stat();
    if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
      throw new LoginFailedError(
        `the ID token file ${path} is readable by others (mode ${(mode & 0o777).toString(8)})`,
      );
    }
    const token = (await handle.readFile('utf8')).trim();
    if (token.split('.').length !== 3) throw new LoginFailedError(`the ID token file ${path} holds no JWT`);
    return token;
  } finally {
    await handle.close();
  }
}

/** The JWS algorithm of a PEM private key: ES256/384/512 by curve, RS256, or EdDSA. */
export function signingAlgorithm(pem: string): string {
  const key = createPrivateKey(pem);
  switch (key.asymmetricKeyType) {
    case 'ec': {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      return curve === 'secp384r1' ? 'ES384' : curve === 'secp521r1' ? 'ES512' : 'ES256';
    }
    case 'rsa':
    case 'rsa-pss':
      return 'RS256';
    case 'ed25519':
      return 'EdDSA';
    default:
      throw new Error(`a ${key.asymmetricKeyType ?? 'unknown'} key cannot sign a client assertion`);
  }
}

/**
 * What a failed token exchange may repeat of the SDK's error: the identity provider's OAuth error
 * code and description; of any other failing answer only its HTTP status, as the SDK quotes that
 * body whole and it may repeat the form sent (the ID token, the client's secret); nothing of an
 * answer it could not parse (a multi-line list). `secrets` are cut out of what is said all the same.
 */
function exchangeFailure(error: unknown, secrets: readonly (string | undefined)[]): string {
  const message = error instanceof Error ? error.message : '';
  const status = /^Token exchange failed with status (\d+):/.exec(message)?.[1];
  let said = isTimeout(error)
    ? 'no answer in time, or the request was cancelled'
    : status !== undefined
      ? `HTTP ${status}, not an OAuth error`
      : message === '' || message.includes('\n')
        ? 'an answer it could not read'
        : message;
  // As written, and as a form or a URL would encode it (a description that repeats the request).
  const forms = secrets.flatMap((secret) =>
    secret ? [secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2)] : [],
  );
  for (const form of forms) said = said.split(form).join('[redacted]');
  return said;
}

import {
  assertSecureTokenEndpoint,
  createPrivateKeyJwtAuth,
  discoverAuthorizationServerMetadata,
  InsecureTokenEndpointError,
  selectClientAuthMethod,
  type AuthorizationServerMetadata,
  type FetchLike,
  type StoredOAuthClientInformation,
} from '@modelcontextprotocol/client';
import { sameIssuer, signingAlgorithm } from './provider.js';
import type { OAuthRecord } from './store.js';
import { boundedFetch, isTimeout } from './bounded-fetch.js';

/** What became of a logout's revocation: done, not offered by the server, or why it failed. */
export type Revocation =
  | { kind: 'revoked'; tokens: number }
  | { kind: 'unsupported' }
  | { kind: 'nothing' }
  | { kind: 'failed'; reason: string };

/** A discovery or revocation request that hangs must not hold a logout (the tokens are deleted anyway). */
const REVOCATION_TIMEOUT_MS = 10_000;

/** What a revocation failed on, in our words (an exception's own text may quote a server). */
class RevocationStep extends Error {
  override name = 'RevocationStep';
}

/**
 * Revokes a login's tokens at the authorization server that issued them (RFC 7009), when its
 * metadata has a `revocation_endpoint`: the refresh token first (revoking it may end the access
 * token too), then the access token. The metadata is the login's cached discovery when it is that
 * issuer's, else it is asked of the issuer the tokens are stamped with (never of whatever the MCP
 * server names now: another authorization server must not see them). Each request is
 * authenticated as the client is at the token endpoint, only when the client is that issuer's too.
 * It never throws: a failure is the `failed` answer, for the caller to report while it forgets
 * the tokens.
 */
export async function revokeTokens(record: OAuthRecord, fetchFn: FetchLike = fetch): Promise<Revocation> {
  const tokens = [
    { token: record.tokens?.refresh_token, hint: 'refresh_token' },
    { token: record.tokens?.access_token, hint: 'access_token' },
  ].filter((entry): entry is { token: string; hint: string } => typeof entry.token === 'string' && entry.token !== '');
  if (tokens.length === 0 || record.client === undefined) return { kind: 'nothing' };
  const issuer = record.tokens?.issuer;
  if (issuer === undefined)
    return { kind: 'failed', reason: 'the login does not say which authorization server issued them' };
  const timed = boundedFetch(fetchFn, REVOCATION_TIMEOUT_MS);
  try {
    const cached = record.discovery?.authorizationServerMetadata;
    const metadata =
      cached !== undefined && sameIssuer(cached.issuer, issuer)
        ? cached
        : await discoverAuthorizationServerMetadata(issuer, { fetchFn: timed }).catch((error: unknown) => {
            throw new RevocationStep(
              isTimeout(error)
                ? 'the authorization server did not answer'
                : `the metadata of the authorization server that issued them could not be read`,
              { cause: error },
            );
          });
    // OpenID provider metadata has no revocation fields in the SDK's types; RFC 8414's has.
    const endpoint = metadata && 'revocation_endpoint' in metadata ? metadata.revocation_endpoint : undefined;
    if (metadata === undefined || endpoint === undefined) return { kind: 'unsupported' };
    if (!sameIssuer(metadata.issuer, issuer))
      return { kind: 'failed', reason: 'the authorization server answered with the metadata of another issuer' };
    const url = assertSecureTokenEndpoint(endpoint);
    const client =
      record.client.issuer !== undefined && sameIssuer(record.client.issuer, issuer) ? record.client : undefined;
    for (const { token, hint } of tokens) {
      const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded' });
      const params = new URLSearchParams({ token, token_type_hint: hint });
      if (client !== undefined) await authenticateClient(record, client, metadata, headers, params, url);
      const response = await timed(url, { method: 'POST', headers, body: params });
      await response.text().catch(() => '');
      // RFC 7009 §2.2: 200 also for a token the server no longer knows.
      if (response.status !== 200)
        return { kind: 'failed', reason: `the revocation endpoint answered HTTP ${response.status}` };
    }
    return { kind: 'revoked', tokens: tokens.length };
  } catch (error) {
    return { kind: 'failed', reason: failure(error) };
  }
}

/** Why a revocation failed, in words that quote no server and no secret. */
function failure(error: unknown): string {
  if (error instanceof RevocationStep) return error.message;
  if (error instanceof InsecureTokenEndpointError) return 'the revocation endpoint is not https';
  if (isTimeout(error)) return 'the revocation endpoint did not answer';
  if (error instanceof SigningError) return 'the client key could not sign the client assertion';
  if (error instanceof TypeError) return 'the revocation endpoint could not be reached';
  return `the revocation failed (${error instanceof Error ? error.name : 'unknown error'})`;
}

class SigningError extends Error {
  override name = 'SigningError';
}

/**
 * The client's authentication of RFC 7009 §2.1, as at the token endpoint: a `private_key_jwt`
 * assertion, HTTP Basic or the form for a client with a secret, else `client_id` alone.
 */
async function authenticateClient(
  record: OAuthRecord,
  client: StoredOAuthClientInformation,
  metadata: AuthorizationServerMetadata,
  headers: Headers,
  params: URLSearchParams,
  url: URL,
): Promise<void> {
  if (record.clientKey !== undefined) {
    const { clientKey } = record;
    try {
      const sign = createPrivateKeyJwtAuth({
        issuer: client.client_id,
        subject: client.client_id,
        privateKey: clientKey,
        alg: signingAlgorithm(clientKey),
      });
      await sign(headers, params, url, metadata);
    } catch (error) {
      throw new SigningError('the client assertion could not be signed', { cause: error });
    }
    return;
  }
  const revocationMethods =
    'revocation_endpoint_auth_methods_supported' in metadata
      ? metadata.revocation_endpoint_auth_methods_supported
      : undefined;
  const supported = revocationMethods ?? metadata.token_endpoint_auth_methods_supported ?? [];
  const method = selectClientAuthMethod(client, supported);
  if (method === 'client_secret_basic' && client.client_secret !== undefined) {
    // RFC 6749 §2.3.1: each part form-urlencoded before the Basic encoding.
    const basic = `${formEncode(client.client_id)}:${formEncode(client.client_secret)}`;
    headers.set('authorization', `Basic ${Buffer.from(basic).toString('base64')}`);
    return;
  }
  params.set('client_id', client.client_id);
  if (method === 'client_secret_post' && client.client_secret !== undefined)
    params.set('client_secret', client.client_secret);
}

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

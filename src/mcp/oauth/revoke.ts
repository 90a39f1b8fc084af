import {
  assertSecureTokenEndpoint,
  createPrivateKeyJwtAuth,
  discoverOAuthServerInfo,
  selectClientAuthMethod,
  type AuthorizationServerMetadata,
  type FetchLike,
  type StoredOAuthClientInformation,
} from '@modelcontextprotocol/client';
import { signingAlgorithm } from './provider.js';
import type { OAuthRecord } from './store.js';

/** What became of a logout's revocation: done, not offered by the server, or why it failed. */
export type Revocation =
  | { kind: 'revoked'; tokens: number }
  | { kind: 'unsupported' }
  | { kind: 'nothing' }
  | { kind: 'failed'; reason: string };

/** A revocation request that hangs must not hold a logout (the tokens are deleted anyway). */
const REVOCATION_TIMEOUT_MS = 10_000;

/**
 * Revokes a login's tokens at its authorization server (RFC 7009) when the server's metadata has a
 * `revocation_endpoint`: the refresh token first (revoking it may end the access token too), then
 * the access token, each request authenticated as the client is at the token endpoint. It never
 * throws: a failure is the `failed` answer, for the caller to report while it forgets the tokens.
 */
export async function revokeTokens(
  record: OAuthRecord,
  serverUrl: URL,
  fetchFn: FetchLike = fetch,
): Promise<Revocation> {
  const tokens = [
    { token: record.tokens?.refresh_token, hint: 'refresh_token' },
    { token: record.tokens?.access_token, hint: 'access_token' },
  ].filter((entry): entry is { token: string; hint: string } => typeof entry.token === 'string' && entry.token !== '');
  if (tokens.length === 0 || record.client === undefined) return { kind: 'nothing' };
  try {
    const metadata =
      record.discovery?.authorizationServerMetadata ??
      (await discoverOAuthServerInfo(serverUrl, { fetchFn })).authorizationServerMetadata;
    // OpenID provider metadata has no revocation fields in the SDK's types; RFC 8414's has.
    const endpoint = metadata && 'revocation_endpoint' in metadata ? metadata.revocation_endpoint : undefined;
    if (metadata === undefined || endpoint === undefined) return { kind: 'unsupported' };
    const url = assertSecureTokenEndpoint(endpoint);
    for (const { token, hint } of tokens) {
      const headers = new Headers({ 'content-type': 'application/x-www-form-urlencoded' });
      const params = new URLSearchParams({ token, token_type_hint: hint });
      await authenticateClient(record, record.client, metadata, headers, params, url);
      const response = await fetchFn(url, {
        method: 'POST',
        headers,
        body: params,
        signal: AbortSignal.timeout(REVOCATION_TIMEOUT_MS),
      });
      await response.text().catch(() => '');
      // RFC 7009 §2.2: 200 also for a token the server no longer knows.
      if (response.status !== 200)
        return { kind: 'failed', reason: `the revocation endpoint answered HTTP ${response.status}` };
    }
    return { kind: 'revoked', tokens: tokens.length };
  } catch (error) {
    const reason =
      error instanceof Error && error.name === 'TimeoutError'
        ? 'the revocation endpoint did not answer'
        : 'the authorization server could not be reached';
    return { kind: 'failed', reason };
  }
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
    const sign = createPrivateKeyJwtAuth({
      issuer: client.client_id,
      subject: client.client_id,
      privateKey: record.clientKey,
      alg: signingAlgorithm(record.clientKey),
    });
    await sign(headers, params, url, metadata);
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

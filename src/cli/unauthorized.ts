import type { HttpServerAddress } from '../mcp/client.js';
import { ConnectionError } from '../mcp/session.js';

/** How long the CLI looks for a server's OAuth metadata after a 401, per request. */
const PROBE_TIMEOUT_MS = 5_000;

/**
 * A connection that failed because the server answered 401 and no login could start here, told
 * apart once more: a server that publishes no OAuth metadata at all (no `resource_metadata` in its
 * `WWW-Authenticate`, no RFC 9728 protected-resource document, no RFC 8414 authorization-server
 * document on its origin) takes a fixed bearer token (as `wallet serve --http` does), not a
 * `servers login`. Any other failure, one with an Authorization header already, or a probe that
 * cannot tell, is returned as it was.
 */
export async function explainUnauthorized(error: unknown, address: HttpServerAddress): Promise<unknown> {
  if (!(error instanceof ConnectionError)) return error;
  const { LoginRequiredError } = await import('../mcp/oauth/errors.js');
  if (!(error.cause instanceof LoginRequiredError)) return error;
  if (Object.keys(address.headers ?? {}).some((name) => name.toLowerCase() === 'authorization')) return error;
  if ((await publishesOAuth(address.url)) !== false) return error;
  return new ConnectionError(
    'Cannot connect to the MCP server: it answered HTTP 401 and publishes no OAuth login, so it takes a bearer token',
    {
      cause: error,
      hint: "Send the token: --header 'Authorization: Bearer ${TOKEN}' (single quotes: the wallet reads $TOKEN, the shell history never sees it), or --header-file <owner-only file>.",
    },
  );
}

/** Whether the server publishes OAuth metadata: true, false, or undefined when it cannot be told. */
async function publishesOAuth(url: URL): Promise<boolean | undefined> {
  try {
    const challenge = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
      signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    await challenge.body?.cancel();
    if (challenge.status !== 401) return undefined;
    if (/resource_metadata\s*=/i.test(challenge.headers.get('www-authenticate') ?? '')) return true;
    const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
    for (const document of [
      `/.well-known/oauth-protected-resource${path}`,
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
    ]) {
      const response = await fetch(new URL(document, url.origin), { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
      await response.body?.cancel();
      if (response.ok) return true;
    }
    return false;
  } catch {
    return undefined;
  }
}

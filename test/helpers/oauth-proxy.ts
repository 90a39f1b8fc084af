import { createHash, randomBytes } from 'node:crypto';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenOnFreePort } from './ports.js';

/**
 * An OAuth 2.1 authorization server and, on the same port, a protected resource: a reverse proxy
 * in front of a real MCP server (`upstream`) that answers 401 with RFC 9728 metadata unless the
 * request carries a live access token. Dynamic registration, PKCE (S256, checked), `iss` in the
 * redirect (RFC 9207), refresh tokens that work once (rotated, as OAuth 2.1 asks of public
 * clients), revocation (RFC 7009, recorded). `/authorize` approves at once: a browser that
 * follows redirects logs in. An enterprise identity provider at `/idp` (issuer `<base>/idp`) exchanges
 * ID tokens for ID-JAGs (RFC 8693, SEP-990) that the token endpoint takes as JWT-bearer grants.
 */
export type Revoked = {
  token: string;
  hint: string | null;
  /** The `client_id` of the form, for a client without a secret. */
  clientId: string | null;
  /** The decoded HTTP Basic credentials (`id:secret`), for a client with a secret. */
  basic: string | null;
};

export type OAuthProxy = {
  url: string;
  /** How often each refresh token was presented at the token endpoint. */
  refreshUses: Map<string, number>;
  /** Refresh grants refused (a refresh token already spent or unknown). */
  refusedRefreshes: number;
  /** Access tokens issued so far. */
  issued: string[];
  /** Clients registered dynamically so far (their ids). */
  registered: string[];
  /** The `client_id` of each authorization request. */
  authorizedClients: string[];
  /** Each revocation request, in order. */
  revocations: Revoked[];
  /**
   * The assertion of each JWT-bearer token request; {@link VALID_WORKLOAD_JWT} and the ID-JAGs
   * the identity provider issued are granted.
   */
  assertions: string[];
  /** The HTTP Basic credentials (`id:secret`) of each JWT-bearer token request, or null. */
  assertionClients: (string | null)[];
  /** The form of each token exchange at the identity provider. */
  exchanges: Record<string, string>[];
  /** The ID-JAGs the identity provider issued. */
  idJags: string[];
  /** The token endpoint refuses every ID-JAG (as one for another client or audience). */
  refuseIdJags: boolean;
  /**
   * The identity provider fails with a body that is no OAuth error and repeats the form it got,
   * the ID token and its client's secret in it (as a careless gateway's error page might).
   */
  idpEchoesForm: boolean;
  /** How long the identity provider waits before it answers a token exchange (one that hangs). */
  idpDelayMs: number;
  /** The request headers of every request to the identity provider (`/idp…`), lower-cased names. */
  idpHeaders: Record<string, string | string[] | undefined>[];
  /**
   * The token endpoint fails with an HTML page that is no OAuth error and repeats the form it got
   * (a grant's assertion, a refresh token, a client secret), as a careless gateway's might.
   */
  tokenEchoesForm: boolean;
  /** The status the revocation endpoint answers (200; else it revokes nothing). */
  revocationStatus: number;
  /** How long the revocation endpoint waits before it answers (a slow authorization server). */
  revocationDelayMs: number;
  /**
   * Every access token stops working, as when they expire: the next call must refresh. The 401s
   * are held until `together` requests got one, so that many clients refresh at the same moment;
   * the next refresh is answered only after `refreshDelayMs`, a window in which a second client
   * that did not wait for the first would present the same refresh token.
   */
  expireAccessTokens(together?: number, refreshDelayMs?: number): void;
  stop(): Promise<void>;
};

/** The workload identity token the test authorization server accepts as a JWT-bearer grant. */
export const VALID_WORKLOAD_JWT = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ3b3JrbG9hZCJ9.valid';

/** The identity provider's client id; it exchanges ID tokens whose signature part is `sso`. */
export const IDP_CLIENT_ID = 'wallet-at-idp';

export async function startOAuthProxy(upstream: string): Promise<OAuthProxy> {
  const target = new URL(upstream);
  const codes = new Map<string, { challenge: string; redirectUri: string }>();
  const access = new Set<string>();
  const refresh = new Set<string>();
  let base = '';
  let barrier = 1;
  let refreshDelay = 0;
  const held: (() => void)[] = [];
  const state: OAuthProxy = {
    url: '',
    refreshUses: new Map(),
    refusedRefreshes: 0,
    issued: [],
    registered: [],
    authorizedClients: [],
    revocations: [],
    assertions: [],
    assertionClients: [],
    exchanges: [],
    idJags: [],
    refuseIdJags: false,
    idpEchoesForm: false,
    idpDelayMs: 0,
    idpHeaders: [],
    tokenEchoesForm: false,
    revocationStatus: 200,
    revocationDelayMs: 0,
    expireAccessTokens: (together = 1, refreshDelayMs = 0) => {
      access.clear();
      barrier = together;
      refreshDelay = refreshDelayMs;
    },
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  const issue = (response: ServerResponse) => {
    const token = randomBytes(16).toString('hex');
    const renewal = randomBytes(16).toString('hex');
    access.add(token);
    refresh.add(renewal);
    state.issued.push(token);
    json(response, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600, refresh_token: renewal });
  };
  const server = createServer((incoming, outgoing) => {
    void (async () => {
      const url = new URL(incoming.url ?? '/', base);
      if (url.pathname.startsWith('/idp') || url.pathname.endsWith('/idp'))
        state.idpHeaders.push({ ...incoming.headers });
      if (url.pathname === '/.well-known/oauth-protected-resource/mcp') {
        return json(outgoing, 200, { resource: `${base}/mcp`, authorization_servers: [base] });
      }
      if (url.pathname === '/.well-known/oauth-authorization-server') {
        return json(outgoing, 200, {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          revocation_endpoint: `${base}/revoke`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none', 'client_secret_basic'],
          authorization_response_iss_parameter_supported: true,
        });
      }
      if (url.pathname === '/.well-known/oauth-authorization-server/idp') {
        return json(outgoing, 200, {
          issuer: `${base}/idp`,
          authorization_endpoint: `${base}/idp/authorize`,
          token_endpoint: `${base}/idp/token`,
          response_types_supported: ['code'],
          grant_types_supported: ['urn:ietf:params:oauth:grant-type:token-exchange'],
        });
      }
      if (url.pathname === '/idp/token' && incoming.method === 'POST') {
        const form = Object.fromEntries(new URLSearchParams(await text(incoming)));
        state.exchanges.push(form);
        if (state.idpEchoesForm) return json(outgoing, 502, { message: 'upstream failed', received: form });
        if (state.idpDelayMs > 0) {
          // Until the delay is over or the client gave up: a request given up gets nothing.
          const answered = await new Promise<boolean>((resolve) => {
            const timer = setTimeout(() => resolve(true), state.idpDelayMs);
            outgoing.once('close', () => {
              clearTimeout(timer);
              resolve(false);
            });
          });
          if (!answered) return;
        }
        const valid =
          form['grant_type'] === 'urn:ietf:params:oauth:grant-type:token-exchange' &&
          form['subject_token_type'] === 'urn:ietf:params:oauth:token-type:id_token' &&
          form['subject_token']?.endsWith('.sso') === true &&
          form['requested_token_type'] === 'urn:ietf:params:oauth:token-type:id-jag' &&
          form['client_id'] === IDP_CLIENT_ID &&
          form['audience'] === base &&
          form['resource'] === `${base}/mcp`;
        if (!valid) return json(outgoing, 400, { error: 'invalid_grant', error_description: 'ID token refused' });
        const jag = `eyJ0eXAiOiJvYXV0aC1pZC1qYWcrand0In0.${randomBytes(12).toString('base64url')}.jag`;
        state.idJags.push(jag);
        return json(outgoing, 200, {
          access_token: jag,
          issued_token_type: 'urn:ietf:params:oauth:token-type:id-jag',
          token_type: 'N_A',
          expires_in: 300,
        });
      }
      if (url.pathname === '/register' && incoming.method === 'POST') {
        const body = JSON.parse(await text(incoming)) as Record<string, unknown>;
        const clientId = randomBytes(8).toString('hex');
        state.registered.push(clientId);
        return json(outgoing, 201, { ...body, client_id: clientId });
      }
      if (url.pathname === '/authorize') {
        state.authorizedClients.push(url.searchParams.get('client_id') ?? '');
        const redirectUri = url.searchParams.get('redirect_uri') ?? '';
        const challenge = url.searchParams.get('code_challenge');
        if (!challenge || url.searchParams.get('code_challenge_method') !== 'S256') {
          return json(outgoing, 400, { error: 'invalid_request' });
        }
        const code = randomBytes(8).toString('hex');
        codes.set(code, { challenge, redirectUri });
        const back = new URL(redirectUri);
        back.searchParams.set('code', code);
        back.searchParams.set('state', url.searchParams.get('state') ?? '');
        back.searchParams.set('iss', base);
        outgoing.writeHead(302, { location: back.href }).end();
        return;
      }
      if (url.pathname === '/token' && incoming.method === 'POST') {
        const form = new URLSearchParams(await text(incoming));
        if (state.tokenEchoesForm) {
          outgoing.writeHead(502, { 'content-type': 'text/html' });
          return outgoing.end(`<html><body>Bad gateway for ${form.toString()}</body></html>`);
        }
        if (form.get('grant_type') === 'authorization_code') {
          const grant = codes.get(form.get('code') ?? '');
          codes.delete(form.get('code') ?? '');
          const verifier = form.get('code_verifier') ?? '';
          const hashed = createHash('sha256').update(verifier).digest('base64url');
          if (!grant || hashed !== grant.challenge || form.get('redirect_uri') !== grant.redirectUri) {
            return json(outgoing, 400, { error: 'invalid_grant' });
          }
          return issue(outgoing);
        }
        if (form.get('grant_type') === 'refresh_token') {
          const presented = form.get('refresh_token') ?? '';
          state.refreshUses.set(presented, (state.refreshUses.get(presented) ?? 0) + 1);
          const delay = refreshDelay;
          refreshDelay = 0;
          if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
          if (!refresh.delete(presented)) {
            state.refusedRefreshes++;
            return json(outgoing, 400, { error: 'invalid_grant' });
          }
          return issue(outgoing);
        }
        if (form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer') {
          const assertion = form.get('assertion') ?? '';
          state.assertions.push(assertion);
          const basic = /^Basic (.+)$/.exec(incoming.headers.authorization ?? '')?.[1];
          state.assertionClients.push(basic === undefined ? null : Buffer.from(basic, 'base64').toString('utf8'));
          const granted = assertion === VALID_WORKLOAD_JWT || (!state.refuseIdJags && state.idJags.includes(assertion));
          return granted ? issue(outgoing) : json(outgoing, 400, { error: 'invalid_grant' });
        }
        return json(outgoing, 400, { error: 'unsupported_grant_type' });
      }
      if (url.pathname === '/revoke' && incoming.method === 'POST') {
        const form = new URLSearchParams(await text(incoming));
        const token = form.get('token') ?? '';
        const basic = /^Basic (.+)$/.exec(incoming.headers.authorization ?? '')?.[1];
        state.revocations.push({
          token,
          hint: form.get('token_type_hint'),
          clientId: form.get('client_id'),
          basic: basic === undefined ? null : Buffer.from(basic, 'base64').toString('utf8'),
        });
        if (state.revocationDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, state.revocationDelayMs));
        if (state.revocationStatus !== 200) return json(outgoing, state.revocationStatus, { error: 'unavailable' });
        access.delete(token);
        refresh.delete(token);
        return json(outgoing, 200, {});
      }
      if (url.pathname === '/mcp') {
        const token = /^Bearer (.+)$/.exec(incoming.headers.authorization ?? '')?.[1];
        if (!token || !access.has(token)) {
          await text(incoming);
          held.push(() =>
            outgoing
              .writeHead(401, {
                'content-type': 'application/json',
                'www-authenticate': `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
              })
              .end('{"error":"invalid_token"}'),
          );
          if (held.length >= barrier) {
            barrier = 1;
            for (const answer of held.splice(0)) answer();
          }
          return;
        }
        const headers = { ...incoming.headers, host: target.host };
        delete headers.authorization;
        const forwarded = request(
          { host: target.hostname, port: target.port, path: target.pathname, method: incoming.method, headers },
          (answer) => {
            outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(outgoing);
          },
        );
        forwarded.on('error', () => outgoing.writeHead(502).end());
        incoming.pipe(forwarded);
        return;
      }
      outgoing.writeHead(404).end();
    })().catch(() => outgoing.writeHead(500).end());
  });
  const port = await listenOnFreePort(server);
  base = `http://127.0.0.1:${port}`;
  state.url = `${base}/mcp`;
  return state;
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function text(incoming: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { WalletError } from '../../domain/errors.js';
import type { Approval, ApprovalStore } from '../../domain/policy/approvals.js';
import { amountText } from '../confirmation.js';

/** Where the page lives on its origin: `wallet serve --http` mounts it beside `/mcp`. */
const PAGE_PATH = '/approvals';

/** An approval id as the store makes them: anything else never reaches the store. */
const APPROVAL_ID = /^ap-[a-z2-7]{10}$/;
/** How long a single-use link may wait to be opened, and how long a browser session lasts. */
const LINK_TTL_MS = 15 * 60_000;
const SESSION_TTL_MS = 8 * 60 * 60_000;
/** Bounds on what an unopened link or a forgotten session holds in memory. */
const MAX_LINKS = 200;
const MAX_SESSIONS = 50;
/** The largest form body a POST may bring (it holds one CSRF token). */
const MAX_FORM_BYTES = 4096;

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin:0 0 .5rem}
.approval{border:1px solid #bbb;border-radius:6px;padding:1rem;margin:1rem 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.5rem 0}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f4;padding:.6rem;border-radius:4px}
form{display:inline-block;margin-right:.6rem}button{font-size:1rem;padding:.4rem 1.2rem}
.note{color:#555}.status{font-weight:600}`;

/** The page runs no script at all; its one style block is allowed by its hash, nothing else loads. */
const CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': CSP,
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  // Not `no-referrer`: under it a browser's form POST says `Origin: null`, which the page refuses.
  'Referrer-Policy': 'same-origin',
  'Cache-Control': 'no-store',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export type ApprovalPageOptions = {
  store: ApprovalStore;
  /** The loopback origin the page is served at, `http://127.0.0.1:<port>`. */
  origin: string;
};

/** The owner's approval page: a web handler and the links that open it. */
export type ApprovalPage = {
  origin: string;
  fetch(request: Request): Promise<Response>;
  /** A single-use link that opens a browser session on the page, at approval `id` or the list. */
  link(id?: string): string;
  /** The page's address of approval `id`, without a token: it opens in a browser with a session. */
  urlOf(id: string): string;
};

/**
 * The owner's approval page: the pending approvals, decoded (the approval's summary: tool,
 * network, account, amount, recipients, fee, the question), with approve and deny buttons.
 *
 * Loopback is reachable by every user and program of the machine, so the page is opened only with a
 * single-use link (`?t=…`) the owner gets on a terminal (`wallet approvals open`, or `wallet serve`'s
 * stderr). The link opens a session (an HttpOnly, SameSite=Strict cookie); every page load issues a
 * CSRF token bound to that session; a state change is a POST with that token, from this origin,
 * to the exact loopback `Host` served. The page runs no script, loads nothing remote, cannot be
 * framed, and shows only the approval's summary (validated audit fields and the question), escaped.
 */
export function createApprovalPage({ store, origin }: ApprovalPageOptions): ApprovalPage {
  const served = new URL(origin);
  const hosts = allowedHosts(served);
  const cookieName = `wallet_approvals_${served.port}`;
  const secret = randomBytes(32);
  const links = new Map<string, { id: string | undefined; expires: number }>();
  const sessions = new Map<string, number>();

  function link(id?: string): string {
    prune(links, MAX_LINKS, (entry) => entry.expires);
    const token = randomBytes(24).toString('base64url');
    links.set(hash(token), { id, expires: Date.now() + LINK_TTL_MS });
    return `${origin}${id === undefined ? PAGE_PATH : `${PAGE_PATH}/${id}`}?t=${token}`;
  }

  /** Takes a link's token, once: true when it was issued for this place and has not been used. */
  function redeem(token: string, id: string | undefined): boolean {
    const key = hash(token);
    const entry = links.get(key);
    links.delete(key);
    return entry !== undefined && entry.expires > Date.now() && (entry.id === undefined || entry.id === id);
  }

  function session(request: Request): string | undefined {
    const sid = cookieValue(request.headers.get('cookie'), cookieName);
    if (sid === undefined) return undefined;
    const expires = sessions.get(sid);
    if (expires === undefined || expires <= Date.now()) {
      sessions.delete(sid);
      return undefined;
    }
    return sid;
  }

  function csrfToken(sid: string): string {
    const nonce = randomBytes(16).toString('base64url');
    return `${nonce}.${mac(sid, nonce)}`;
  }

  function csrfValid(sid: string, token: string | null): boolean {
    const [nonce, given, ...rest] = (token ?? '').split('.');
    if (!nonce || !given || rest.length > 0) return false;
    const expected = Buffer.from(mac(sid, nonce));
    const actual = Buffer.from(given);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  function mac(sid: string, nonce: string): string {
    return createHmac('sha256', secret).update(`${sid}.${nonce}`).digest('base64url');
  }

  async function handle(request: Request): Promise<Response> {
    const host = request.headers.get('host') ?? '';
    if (!hosts.includes(host.toLowerCase())) return refused(403, 'This page answers only at its own loopback address.');
    const requestOrigin = request.headers.get('origin');
    if (requestOrigin !== null && requestOrigin !== `http://${host}`) {
      return refused(403, 'A request from another origin is refused.');
    }
    const url = new URL(request.url);
    const route = routeOf(url.pathname);
    if (route === undefined) return refused(404, 'There is nothing here.');
    if (route.kind === 'bad-id') return refused(400, 'That is not an approval id.');
    if (route.kind === 'decide') {
      if (request.method !== 'POST') return refused(405, 'Approve and deny are POST only.', { Allow: 'POST' });
      // Browsers send Origin with every POST: one without it did not come from this page.
      if (requestOrigin === null) return refused(403, 'A request from another origin is refused.');
      const fetchSite = request.headers.get('sec-fetch-site');
      if (fetchSite !== null && fetchSite !== 'same-origin') {
        return refused(403, 'A request from another origin is refused.');
      }
      const sid = session(request);
      if (sid === undefined) return noSession();
      const form = await readForm(request);
      if (form === undefined || !csrfValid(sid, form.get('csrf'))) {
        return refused(403, 'The form is stale or was not sent by this page: reload the page and try again.');
      }
      try {
        await store.decide(route.id, route.answer === 'approve' ? 'approved' : 'denied', 'page');
      } catch (error) {
        if (error instanceof WalletError && error.code === 'INVALID_PARAM') return refused(409, error.message);
        throw error;
      }
      return new Response(null, {
        status: 303,
        headers: { ...SECURITY_HEADERS, Location: `${PAGE_PATH}/${route.id}` },
      });
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return refused(405, 'This page is read with GET.', { Allow: 'GET, HEAD' });
    }
    const token = url.searchParams.get('t');
    if (token !== null) {
      if (!redeem(token, route.kind === 'one' ? route.id : undefined)) {
        return refused(
          403,
          'This link was already used, has expired or is for another approval. Run "wallet approvals open" in a terminal for a new one.',
        );
      }
      prune(sessions, MAX_SESSIONS, (expires) => expires);
      const sid = randomBytes(24).toString('base64url');
      sessions.set(sid, Date.now() + SESSION_TTL_MS);
      // The address without its token: a reload or the history never shows a used link. A
      // same-origin navigation, so the SameSite=Strict cookie goes with it.
      const clean = route.kind === 'one' ? `${PAGE_PATH}/${route.id}` : PAGE_PATH;
      return htmlResponse(
        200,
        'Opening the approval page',
        `<p>Opening <a href="${clean}">the approval page</a>…</p>`,
        {
          'Set-Cookie': `${cookieName}=${sid}; HttpOnly; SameSite=Strict; Path=${PAGE_PATH}; Max-Age=${SESSION_TTL_MS / 1000}`,
        },
        `<meta http-equiv="refresh" content="0;url=${clean}">`,
      );
    }
    const sid = session(request);
    if (sid === undefined) return noSession();
    const csrf = csrfToken(sid);
    if (route.kind === 'one') {
      const approval = (await store.list()).find((each) => each.id === route.id);
      if (approval === undefined) return refused(404, `No approval ${route.id} (it may have expired long ago).`);
      return htmlResponse(
        200,
        `Approval ${approval.id}`,
        `${card(approval, csrf)}<p><a href="${PAGE_PATH}">All approvals</a></p>`,
      );
    }
    const approvals = await store.list();
    const pending = approvals.filter((approval) => approval.status === 'pending');
    const decided = approvals.filter((approval) => approval.status !== 'pending');
    const body = [
      pending.length === 0
        ? '<p>No approvals are waiting.</p>'
        : pending.map((approval) => card(approval, csrf)).join(''),
      decided.length === 0 ? '' : `<h2>Decided in the last day</h2>${decidedList(decided)}`,
      `<p><a href="${PAGE_PATH}">Reload</a></p>`,
    ].join('');
    return htmlResponse(200, 'Approvals waiting for you', body);
  }

  return {
    origin,
    link,
    urlOf: (id) => `${origin}${PAGE_PATH}/${id}`,
    fetch: async (request) => {
      try {
        return await handle(request);
      } catch (error) {
        // A damaged approvals file, a busy lock: said plainly, nothing decided.
        const message = error instanceof WalletError ? error.message : 'Internal error.';
        return refused(500, message);
      }
    },
  };
}

type Route =
  | { kind: 'list' }
  | { kind: 'one'; id: string }
  | { kind: 'decide'; id: string; answer: 'approve' | 'deny' }
  | { kind: 'bad-id' };

function routeOf(path: string): Route | undefined {
  if (path === PAGE_PATH || path === `${PAGE_PATH}/`) return { kind: 'list' };
  if (!path.startsWith(`${PAGE_PATH}/`)) return undefined;
  const [id = '', action, ...rest] = path.slice(PAGE_PATH.length + 1).split('/');
  if (rest.length > 0) return undefined;
  if (!APPROVAL_ID.test(id)) return { kind: 'bad-id' };
  if (action === undefined) return { kind: 'one', id };
  if (action === 'approve' || action === 'deny') return { kind: 'decide', id, answer: action };
  return undefined;
}

/** `host:port` for the served address and `localhost`, the names a browser on this machine uses. */
function allowedHosts(served: URL): string[] {
  const names = new Set([served.hostname.toLowerCase()]);
  if (served.hostname === '127.0.0.1' || served.hostname === 'localhost') {
    names.add('127.0.0.1');
    names.add('localhost');
  }
  return [...names].map((name) => `${name}:${served.port}`);
}

function hash(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

/** Drops expired entries, then the oldest, until there is room for one more. */
function prune<T>(map: Map<string, T>, max: number, expiresOf: (value: T) => number): void {
  const now = Date.now();
  for (const [key, value] of map) if (expiresOf(value) <= now) map.delete(key);
  for (const key of map.keys()) {
    if (map.size < max) break;
    map.delete(key);
  }
}

function cookieValue(header: string | null, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/** A url-encoded form of at most {@link MAX_FORM_BYTES}; undefined for anything else. */
async function readForm(request: Request): Promise<URLSearchParams | undefined> {
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/x-www-form-urlencoded\b/i.test(type)) return undefined;
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_FORM_BYTES) return undefined;
  return new URLSearchParams(text);
}

/** Text for HTML, attribute values included: everything an agent could have chosen goes through here. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function htmlResponse(
  status: number,
  title: string,
  body: string,
  headers: Record<string, string> = {},
  head = '',
): Response {
  const document = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">${head}
<title>${escapeHtml(title)} · wallet</title><style>${STYLE}</style></head>
<body><h1>${escapeHtml(title)}</h1>${body}</body></html>
`;
  return new Response(document, {
    status,
    headers: { ...SECURITY_HEADERS, 'Content-Type': 'text/html; charset=utf-8', ...headers },
  });
}

function refused(status: number, message: string, headers: Record<string, string> = {}): Response {
  return htmlResponse(status, 'Not done', `<p>${escapeHtml(message)}</p>`, headers);
}

function noSession(): Response {
  return refused(
    403,
    'This page opens with a single-use link from your terminal: run "wallet approvals open", or use the link wallet serve printed.',
  );
}

/** One approval as the owner reads it: the summary's facts, the question, and, while pending, the buttons. */
function card(approval: Approval, csrf: string): string {
  const { summary } = approval;
  const rows: [string, string | undefined][] = [
    ['Approval', approval.id],
    ['Network', summary.network],
    ['Wallet', summary.wallet_id],
    ['From', summary.from],
    [
      'Amount',
      summary.amount !== undefined && summary.unit
        ? amountText(summary.amount, summary.unit, summary.token)
        : undefined,
    ],
    ['To', summary.recipient === undefined ? undefined : [summary.recipient].flat().join(', ')],
    [
      'Fee, at most',
      summary.fee !== undefined && summary.fee_unit ? amountText(summary.fee, summary.fee_unit) : undefined,
    ],
    ['Why it waits', summary.reason],
    ['Status', approval.status === 'approved' ? `approved (${approval.approved_by ?? 'terminal'})` : approval.status],
    [approval.status === 'pending' ? 'Expires' : 'Good until', approval.expires],
  ];
  const facts = rows
    .filter((row): row is [string, string] => row[1] !== undefined)
    .map(([name, value]) => `<dt>${escapeHtml(name)}</dt><dd>${escapeHtml(value)}</dd>`)
    .join('');
  const buttons =
    approval.status === 'pending'
      ? (['approve', 'deny'] as const)
          .map(
            (answer) =>
              `<form method="post" action="${PAGE_PATH}/${approval.id}/${answer}"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><button type="submit" name="answer" value="${answer}" id="${answer}-${approval.id}">${answer === 'approve' ? 'Approve' : 'Deny'}</button></form>`,
          )
          .join('')
      : `<p class="note">${approval.status === 'approved' ? "The agent's same call goes through once when it repeats it." : 'Nothing more to do.'}</p>`;
  return `<section class="approval" id="${approval.id}"><h2>${escapeHtml(summary.tool)}</h2><dl>${facts}</dl><pre>${escapeHtml(summary.text)}</pre>${buttons}</section>`;
}

function decidedList(approvals: readonly Approval[]): string {
  const items = approvals.map(
    (approval) =>
      `<li><a href="${PAGE_PATH}/${approval.id}">${approval.id}</a> ${escapeHtml(approval.summary.tool)}: <span class="status">${escapeHtml(approval.status)}</span></li>`,
  );
  return `<ul>${items.join('')}</ul>`;
}

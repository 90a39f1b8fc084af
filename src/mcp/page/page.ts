import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { dirname } from 'node:path';
import { WalletError } from '../../domain/errors.js';
import type { Approval, ApprovalStore } from '../../domain/policy/approvals.js';
import { PasskeyStore, type Passkey } from '../../domain/policy/passkeys.js';
import { spendingToday, type CapStanding } from '../../domain/policy/spending-today.js';
import { WalletServices } from '../../domain/services.js';
import { amountText } from '../confirmation.js';
import {
  approvalChallenge,
  assertionOptions,
  bindsApproval,
  CHALLENGE_TTL_MS,
  registrationOptions,
  relyingPartyOf,
  verifyAssertion,
  verifyRegistration,
} from './passkey.js';
import { PASSKEY_SCRIPT } from './passkey-script.js';

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
/** Passkey challenges issued and not yet answered, at most. */
const MAX_CHALLENGES = 200;
/** The largest form body a POST may bring (a CSRF token and, with passkeys, the browser's answer). */
const MAX_FORM_BYTES = 12_288;
/** Where the page's one script is served (the passkey ceremonies), and where a passkey is enrolled. */
const SCRIPT_PATH = `${PAGE_PATH}/passkey.js`;
const ENROL_PATH = `${PAGE_PATH}/passkeys/new`;

const STYLE = `body{font:15px/1.45 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin:0 0 .5rem}
.approval{border:1px solid #bbb;border-radius:6px;padding:1rem;margin:1rem 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:.5rem 0}dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f4;padding:.6rem;border-radius:4px}
form{display:inline-block;margin-right:.6rem}button{font-size:1rem;padding:.4rem 1.2rem}
.note{color:#555}.status{font-weight:600}
table{border-collapse:collapse;margin:.5rem 0}th,td{border-bottom:1px solid #ddd;padding:.2rem .6rem;text-align:left;vertical-align:top}
td{overflow-wrap:anywhere}.over{color:#a00;font-weight:600}`;

/**
 * The page runs no script but where a passkey ceremony is on it; its one style block is allowed by
 * its hash; nothing else loads, nothing is evaluated.
 */
const CSP_RULES = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
];
const CSP = CSP_RULES.join('; ');

/**
 * A page with a passkey ceremony: its one script is the static file of its own origin
 * (`/approvals/passkey.js`), never inline, never eval'd.
 */
const WITH_SCRIPT = {
  headers: { 'Content-Security-Policy': [...CSP_RULES, "script-src 'self'"].join('; ') },
  head: `<script src="${SCRIPT_PATH}" defer></script>`,
};

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
  /** The data directory (passkeys, policy, spend ledgers): by default the approvals store's. */
  dataDir?: string;
  /**
   * The enrolment of a new passkey, served only by `wallet approvals passkey add` after the keystore
   * passphrase was given at its terminal: its name, and what to do once it is enrolled. A page
   * without it (every `wallet serve`'s) enrolls nothing.
   */
  enrolment?: { name: string; enrolled: (passkey: Passkey) => void };
};

/** The owner's approval page: a web handler and the links that open it. */
export type ApprovalPage = {
  origin: string;
  fetch(request: Request): Promise<Response>;
  /** A single-use link that opens a browser session on the page, at approval `id` or the list. */
  link(id?: string): string;
  /** A single-use link to the enrolment of a new passkey (only with `enrolment`). */
  enrolLink(): string;
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
export function createApprovalPage({ store, origin, dataDir, enrolment }: ApprovalPageOptions): ApprovalPage {
  const served = new URL(origin);
  const rp = relyingPartyOf(served);
  const hosts = allowedHosts(served, rp.id);
  const cookieName = `wallet_approvals_${served.port}`;
  const secret = randomBytes(32);
  const links = new Map<string, { id: string | undefined; enrol: boolean; expires: number }>();
  const sessions = new Map<string, { expires: number; enrol: boolean }>();
  const home = dataDir ?? dirname(store.path);
  const passkeys = new PasskeyStore(home);
  /** Challenges of passkey yeses issued on page loads: each is bound to its session and approval, and used once. */
  const challenges = new Map<string, { sid: string; id: string; expires: number }>();
  /** The registration challenge of each enrolment session. */
  const registrations = new Map<string, { challenge: string; expires: number }>();

  /** The origin links point at: the passkeys' (`localhost`) once one is enrolled or enrolling. */
  function linkOrigin(): string {
    return enrolment !== undefined || passkeys.enrolled() ? rp.origin : origin;
  }

  function newLink(id: string | undefined, enrol: boolean, path: string): string {
    prune(links, MAX_LINKS, (entry) => entry.expires);
    const token = randomBytes(24).toString('base64url');
    links.set(hash(token), { id, enrol, expires: Date.now() + LINK_TTL_MS });
    return `${linkOrigin()}${path}?t=${token}`;
  }

  function link(id?: string): string {
    return newLink(id, false, id === undefined ? PAGE_PATH : `${PAGE_PATH}/${id}`);
  }

  /** Takes a link's token, once: the link when it was issued for this place and has not been used. */
  function redeem(token: string, route: Route): { enrol: boolean } | undefined {
    const key = hash(token);
    const entry = links.get(key);
    links.delete(key);
    if (entry === undefined || entry.expires <= Date.now()) return undefined;
    if (route.kind === 'enrol') return entry.enrol ? { enrol: true } : undefined;
    if (entry.enrol) return undefined;
    const id = route.kind === 'one' ? route.id : undefined;
    return entry.id === undefined || entry.id === id ? { enrol: false } : undefined;
  }

  function session(request: Request): string | undefined {
    const sid = cookieValue(request.headers.get('cookie'), cookieName);
    if (sid === undefined) return undefined;
    const entry = sessions.get(sid);
    if (entry === undefined || entry.expires <= Date.now()) {
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

  /** A POST's checks: from this page's origin, in a session, with the session's CSRF token. */
  async function postedForm(
    request: Request,
    requestOrigin: string | null,
  ): Promise<{ sid: string; form: URLSearchParams } | Response> {
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
    return { sid, form };
  }

  /**
   * A passkey yes to approval `id`: the browser's assertion over a challenge this page issued to
   * this session for this approval and its exact call (taken once, whatever the outcome), by an
   * enrolled passkey whose counter moves on. Throws `POLICY_VIOLATION` for anything else.
   */
  async function passkeyYes(sid: string, id: string, credential: string | null): Promise<void> {
    const approval = await store.pending(id);
    const enrolled = await passkeys.list();
    const { passkey, counter } = await verifyAssertion(rp, credential, enrolled, (challenge) => {
      const issued = challenges.get(challenge);
      challenges.delete(challenge);
      return (
        issued !== undefined &&
        issued.sid === sid &&
        issued.id === id &&
        issued.expires > Date.now() &&
        bindsApproval(challenge, approval)
      );
    });
    await passkeys.recordUse(passkey.id, counter);
  }

  async function decide(request: Request, requestOrigin: string | null, route: DecideRoute): Promise<Response> {
    const posted = await postedForm(request, requestOrigin);
    if (posted instanceof Response) return posted;
    // Read now, not the replica's cached read: a passkey enrolled a moment ago makes a button's yes none.
    const withPasskey = route.answer === 'approve' && (await passkeys.enrolledNow());
    try {
      if (withPasskey) await passkeyYes(posted.sid, route.id, posted.form.get('credential'));
      await store.decide(
        route.id,
        route.answer === 'approve' ? 'approved' : 'denied',
        withPasskey ? 'passkey' : 'page',
      );
    } catch (error) {
      if (error instanceof WalletError && error.code === 'INVALID_PARAM') return refused(409, error.message);
      if (error instanceof WalletError && error.code === 'POLICY_VIOLATION') return refused(403, error.message);
      throw error;
    }
    return new Response(null, {
      status: 303,
      headers: { ...SECURITY_HEADERS, Location: `${PAGE_PATH}/${route.id}` },
    });
  }

  /** The enrolment of a new passkey: its page (GET) and the browser's registration (POST). */
  async function enrol(request: Request, requestOrigin: string | null, host: string): Promise<Response> {
    if (enrolment === undefined) return refused(404, 'Passkeys are enrolled with "wallet approvals passkey add".');
    if (request.method === 'POST') {
      const posted = await postedForm(request, requestOrigin);
      if (posted instanceof Response) return posted;
      const registration = registrations.get(posted.sid);
      registrations.delete(posted.sid);
      if (!sessions.get(posted.sid)?.enrol || registration === undefined || registration.expires <= Date.now()) {
        return refused(403, 'This enrolment is stale: run "wallet approvals passkey add" again.');
      }
      try {
        const made = await verifyRegistration(
          rp,
          posted.form.get('credential'),
          registration.challenge,
          enrolment.name,
        );
        const added = await passkeys.add(made);
        enrolment.enrolled(added);
        return htmlResponse(
          200,
          'Passkey enrolled',
          `<p>The passkey <strong>${escapeHtml(added.name)}</strong> is enrolled. From now on every yes to an agent's call is given with a passkey, on this page.</p>`,
        );
      } catch (error) {
        if (error instanceof WalletError) return refused(403, error.message);
        throw error;
      }
    }
    const sid = session(request);
    if (sid === undefined || !sessions.get(sid)?.enrol) return noSession();
    if (host !== new URL(rp.origin).host) {
      return refused(403, `Passkeys are enrolled at ${rp.origin}: run "wallet approvals passkey add" again.`);
    }
    const { options, challenge } = await registrationOptions(rp, enrolment.name, await passkeys.list());
    registrations.set(sid, { challenge, expires: Date.now() + CHALLENGE_TTL_MS });
    return htmlResponse(
      200,
      'Enroll a passkey',
      `<p>Enroll the passkey <strong>${escapeHtml(enrolment.name)}</strong>: your device asks you to verify (PIN, fingerprint or face). Once one is enrolled, every yes to an agent's call takes a passkey.</p>${passkeyForm(ENROL_PATH, csrfToken(sid), 'create', options, 'Enroll passkey', 'enrol')}`,
      WITH_SCRIPT.headers,
      WITH_SCRIPT.head,
    );
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
    if (route.kind === 'script') {
      return new Response(PASSKEY_SCRIPT, {
        status: 200,
        headers: { ...SECURITY_HEADERS, 'Content-Type': 'text/javascript; charset=utf-8' },
      });
    }
    if (route.kind === 'decide') {
      if (request.method !== 'POST') return refused(405, 'Approve and deny are POST only.', { Allow: 'POST' });
      return decide(request, requestOrigin, route);
    }
    if (route.kind === 'enrol' && request.method === 'POST' && url.searchParams.get('t') === null) {
      return enrol(request, requestOrigin, host);
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return refused(405, 'This page is read with GET.', { Allow: 'GET, HEAD' });
    }
    const token = url.searchParams.get('t');
    if (token !== null) {
      const opened = redeem(token, route);
      if (opened === undefined) {
        return refused(
          403,
          'This link was already used, has expired or is for another approval. Run "wallet approvals open" in a terminal for a new one.',
        );
      }
      prune(sessions, MAX_SESSIONS, (entry) => entry.expires);
      const sid = randomBytes(24).toString('base64url');
      sessions.set(sid, { expires: Date.now() + SESSION_TTL_MS, enrol: opened.enrol });
      // The address without its token: a reload or the history never shows a used link. A
      // same-origin navigation, so the SameSite=Strict cookie goes with it.
      const clean = route.kind === 'one' ? `${PAGE_PATH}/${route.id}` : route.kind === 'enrol' ? ENROL_PATH : PAGE_PATH;
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
    if (route.kind === 'enrol') return enrol(request, requestOrigin, host);
    const sid = session(request);
    if (sid === undefined) return noSession();
    const csrf = csrfToken(sid);
    const asking = await passkeyAsking(sid, host);
    const standing = await spendingSection(home);
    const script = asking.kind === 'passkey' ? WITH_SCRIPT : { headers: {}, head: '' };
    if (route.kind === 'one') {
      const approval = (await store.list()).find((each) => each.id === route.id);
      if (approval === undefined) return refused(404, `No approval ${route.id} (it may have expired long ago).`);
      return htmlResponse(
        200,
        `Approval ${approval.id}`,
        `${await card(approval, csrf, asking)}${standing}<p><a href="${PAGE_PATH}">All approvals</a></p>`,
        script.headers,
        script.head,
      );
    }
    const approvals = await store.list();
    const pending = approvals.filter((approval) => approval.status === 'pending');
    const decided = approvals.filter((approval) => approval.status !== 'pending');
    const cards = await Promise.all(pending.map((approval) => card(approval, csrf, asking)));
    const body = [
      pending.length === 0 ? '<p>No approvals are waiting.</p>' : cards.join(''),
      standing,
      decided.length === 0 ? '' : `<h2>Decided in the last day</h2>${decidedList(decided)}`,
      `<p><a href="${PAGE_PATH}">Reload</a></p>`,
    ].join('');
    return htmlResponse(200, 'Approvals waiting for you', body, script.headers, script.head);
  }

  /**
   * How this page load asks for a yes: with a passkey once one is enrolled (each pending approval
   * gets a challenge of its own, bound to this session), else with the plain button. A session on
   * `127.0.0.1` cannot run a passkey ceremony (WebAuthn takes no IP address): it is told where.
   */
  async function passkeyAsking(sid: string, host: string): Promise<Asking> {
    if (!passkeys.enrolled()) return { kind: 'button' };
    if (host !== new URL(rp.origin).host) return { kind: 'elsewhere', origin: rp.origin };
    const enrolled = await passkeys.list();
    return {
      kind: 'passkey',
      options: async (approval) => {
        prune(challenges, MAX_CHALLENGES, (entry) => entry.expires);
        const challenge = approvalChallenge(approval);
        challenges.set(challenge, { sid, id: approval.id, expires: Date.now() + CHALLENGE_TTL_MS });
        return assertionOptions(rp, enrolled, challenge);
      },
    };
  }

  return {
    origin,
    link,
    enrolLink: () => {
      if (enrolment === undefined) throw new Error('this page enrolls no passkey');
      return newLink(undefined, true, ENROL_PATH);
    },
    urlOf: (id) => `${linkOrigin()}${PAGE_PATH}/${id}`,
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

/** How a page load asks for a yes (see `passkeyAsking`). */
type Asking =
  | { kind: 'button' }
  | { kind: 'elsewhere'; origin: string }
  | { kind: 'passkey'; options: (approval: Approval) => Promise<unknown> };

type DecideRoute = { kind: 'decide'; id: string; answer: 'approve' | 'deny' };

type Route =
  | { kind: 'list' }
  | { kind: 'one'; id: string }
  | DecideRoute
  | { kind: 'script' }
  | { kind: 'enrol' }
  | { kind: 'bad-id' };

function routeOf(path: string): Route | undefined {
  if (path === PAGE_PATH || path === `${PAGE_PATH}/`) return { kind: 'list' };
  if (path === SCRIPT_PATH) return { kind: 'script' };
  if (path === ENROL_PATH) return { kind: 'enrol' };
  if (!path.startsWith(`${PAGE_PATH}/`)) return undefined;
  const [id = '', action, ...rest] = path.slice(PAGE_PATH.length + 1).split('/');
  if (rest.length > 0) return undefined;
  if (!APPROVAL_ID.test(id)) return { kind: 'bad-id' };
  if (action === undefined) return { kind: 'one', id };
  if (action === 'approve' || action === 'deny') return { kind: 'decide', id, answer: action };
  return undefined;
}

/**
 * `host:port` for the served address, `localhost`, and the passkeys' relying party (`localhost` for
 * a page on 127.0.0.1 or [::1]): the names a browser on this machine uses.
 */
function allowedHosts(served: URL, relyingParty: string): string[] {
  const names = new Set([served.hostname.toLowerCase(), relyingParty]);
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
async function card(approval: Approval, csrf: string, asking: Asking): Promise<string> {
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
  const plainForm = (answer: 'approve' | 'deny'): string =>
    `<form method="post" action="${PAGE_PATH}/${approval.id}/${answer}"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><button type="submit" name="answer" value="${answer}" id="${answer}-${approval.id}">${answer === 'approve' ? 'Approve' : 'Deny'}</button></form>`;
  const approveForm =
    asking.kind === 'button'
      ? plainForm('approve')
      : asking.kind === 'elsewhere'
        ? `<p class="note">Approving takes your passkey, which works at ${escapeHtml(asking.origin)}: open this page with a new link from "wallet approvals open".</p>`
        : passkeyForm(
            `${PAGE_PATH}/${approval.id}/approve`,
            csrf,
            'get',
            await asking.options(approval),
            'Approve with passkey',
            `approve-${approval.id}`,
          );
  const buttons =
    approval.status === 'pending'
      ? `${approveForm}${plainForm('deny')}`
      : `<p class="note">${approval.status === 'approved' ? "The agent's same call goes through once when it repeats it." : 'Nothing more to do.'}</p>`;
  return `<section class="approval" id="${approval.id}"><h2>${escapeHtml(summary.tool)}</h2><dl>${facts}</dl><pre>${escapeHtml(summary.text)}</pre>${buttons}</section>`;
}

/**
 * A form whose submission runs a passkey ceremony first (the page's script, `/approvals/passkey.js`):
 * `options` are the server's, the browser's answer goes back in the `credential` field.
 */
function passkeyForm(
  action: string,
  csrf: string,
  ceremony: 'create' | 'get',
  options: unknown,
  label: string,
  buttonId: string,
): string {
  return `<form method="post" action="${action}" data-ceremony="${ceremony}" data-passkey="${escapeHtml(JSON.stringify(options))}"><input type="hidden" name="csrf" value="${escapeHtml(csrf)}"><input type="hidden" name="credential" value=""><button type="submit" id="${escapeHtml(buttonId)}">${escapeHtml(label)}</button> <span class="passkey-status note" role="status"></span></form>`;
}

/**
 * Today's standing of every 24-hour cap (the last 24 hours the ledgers count), read-only; nothing
 * when the policy sets no caps. A config the page cannot read is said, not hidden.
 */
async function spendingSection(dataDir: string): Promise<string> {
  let rows: CapStanding[];
  try {
    const services = new WalletServices({ dataDir });
    // The ledgers where the policy counts them: the state store's when one is set.
    rows = await spendingToday(services.ledgers, (await services.networks()).networks).finally(() =>
      services.closeState(),
    );
  } catch (error) {
    const why = error instanceof WalletError ? error.message : 'the config cannot be read';
    return `<h2>Spent in the last 24 hours</h2><p class="note">Unknown: ${escapeHtml(why)}</p>`;
  }
  if (rows.length === 0) return '<h2>Spent in the last 24 hours</h2><p class="note">No policy sets a cap.</p>';
  const cell = (value: string | undefined): string => `<td>${value === undefined ? '—' : escapeHtml(value)}</td>`;
  const lines = rows.map(
    (row) =>
      `<tr><td>${escapeHtml(`${row.chain} ${row.networks.join(', ')}`)}</td><td>${escapeHtml(row.asset)}</td>${cell(row.spent)}${cell(row.capPer24h)}${cell(row.spentByAgents)}${cell(row.agentCapPer24h)}${cell(row.capPerTx)}${cell(row.agentCapPerTx)}</tr>${row.problem === undefined ? '' : `<tr><td colspan="8" class="over">${escapeHtml(row.problem)}</td></tr>`}`,
  );
  return `<h2>Spent in the last 24 hours</h2><table id="spending"><thead><tr><th>Network</th><th>Asset</th><th>Spent</th><th>Cap (24 h)</th><th>By agents alone</th><th>Agents' cap (24 h)</th><th>Cap per transaction</th><th>Agents' cap per transaction</th></tr></thead><tbody>${lines.join('')}</tbody></table>`;
}

function decidedList(approvals: readonly Approval[]): string {
  const items = approvals.map(
    (approval) =>
      `<li><a href="${PAGE_PATH}/${approval.id}">${approval.id}</a> ${escapeHtml(approval.summary.tool)}: <span class="status">${escapeHtml(approval.status)}</span></li>`,
  );
  return `<ul>${items.join('')}</ul>`;
}

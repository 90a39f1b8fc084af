/**
 * The approval page's safety, over plain HTTP (no browser): a request that does not come from the
 * owner's browser session on the page itself is refused, and nothing is approved. Then the page
 * mounted on a real `wallet serve --http`: an agent's call that waits names the page's address,
 * the owner's single-use link (on serve's stderr) opens it, a yes there lets the same call through
 * once, with authority `page` in the audit log.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ApprovalStore, type Approval } from '../../src/domain/policy/approvals.js';
import { serveApprovalPage, type ServedPage } from '../../src/mcp/page/serve.js';
import { ERROR_META_KEY, type ToolErrorMeta } from '../../src/shared/protocol-meta.js';
import { startHttpServe, type HttpServe } from '../helpers/http-serve.js';
import { passphraseFileIn, tempHome } from '../helpers/io.js';
import { importAnvilAccount } from '../helpers/mcp.js';
import { csrfOf, pageRequest, sessionCookie } from '../helpers/page-http.js';
import { WALLET_BIN } from '../helpers/paths.js';
import { auditLines } from '../helpers/policy.js';

const HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'&';

describe('the approval page refuses what is not the owner on the page', () => {
  let home: string;
  let store: ApprovalStore;
  let page: ServedPage;
  let pending: Approval;
  let cookie: string;

  const status = async (id: string) => (await store.list()).find((approval) => approval.id === id)?.status;
  /** A page load in the owner's session: its CSRF token. */
  const freshCsrf = async () => csrfOf(await pageRequest(`${page.origin}/approvals`, { headers: { Cookie: cookie } }));
  const approve = (id: string, headers: Record<string, string>, body: string) =>
    pageRequest(`${page.origin}/approvals/${id}/approve`, { method: 'POST', headers, body });

  before(async () => {
    home = tempHome();
    store = new ApprovalStore(home);
    pending = await store.request('a'.repeat(64), {
      tool: 'evm_funds_send',
      network: 'local',
      from: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      amount: '1000000000000000',
      unit: 'wei',
      recipient: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
      fee: '21000000000000',
      fee_unit: 'wei',
      text: `Send ether (evm_funds_send) on local:\n  memo: ${HOSTILE}`,
      reason: `no autonomy for ${HOSTILE}`,
    });
    page = await serveApprovalPage({ dataDir: home, listen: { host: '127.0.0.1', port: 0 }, background: true });
    const opened = await pageRequest(page.link());
    cookie = sessionCookie(opened);
  });
  after(async () => {
    await page.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('a link opens an HttpOnly, SameSite=Strict session once; its replay opens nothing', async () => {
    const link = page.link(pending.id);
    const first = await pageRequest(link);
    assert.equal(first.status, 200);
    const setCookie = String(first.headers['set-cookie']);
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Strict/);
    assert.match(first.body, new RegExp(`http-equiv="refresh" content="0;url=/approvals/${pending.id}"`));
    const replay = await pageRequest(link);
    assert.equal(replay.status, 403);
    assert.equal(replay.headers['set-cookie'], undefined);
    assert.match(replay.body, /already used/);
    const elsewhere = await pageRequest(page.link('ap-aaaaaaaaaa').replace('ap-aaaaaaaaaa', pending.id));
    assert.equal(elsewhere.status, 403, 'a link for one approval opens no other');
  });

  it('without a session the page shows nothing', async () => {
    const bare = await pageRequest(`${page.origin}/approvals`);
    assert.equal(bare.status, 403);
    assert.doesNotMatch(bare.body, /evm_funds_send|ap-/);
    const forged = await pageRequest(`${page.origin}/approvals`, {
      headers: { Cookie: `${cookie.split('=')[0]}=forged` },
    });
    assert.equal(forged.status, 403);
  });

  it('shows the summary decoded and escaped, under a strict CSP, never framed, no secret', async () => {
    const shown = await pageRequest(`${page.origin}/approvals`, { headers: { Cookie: cookie } });
    assert.equal(shown.status, 200);
    assert.match(shown.body, /0\.001 ether \(1000000000000000 wei\)/);
    assert.match(shown.body, /0x90F79bf6EB2c4f870365E785982E1f101E93b906/);
    assert.match(shown.body, /0\.000021 ether/);
    assert.doesNotMatch(shown.body, /<script|<img/i, 'the agent-chosen text is escaped');
    assert.match(
      shown.body,
      /&#60;script&#62;alert\(1\)&#60;\/script&#62;&#60;img src=x onerror=alert\(2\)&#62;&#34;&#39;&#38;/,
    );
    assert.doesNotMatch(shown.body, /a{64}/, 'not the digest');
    const csp = String(shown.headers['content-security-policy']);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    assert.equal(shown.headers['x-frame-options'], 'DENY');
    assert.equal(shown.headers['cache-control'], 'no-store');
  });

  it('refuses a cross-origin POST, a POST without Origin, and a wrong Host', async () => {
    const csrf = await freshCsrf();
    const body = `csrf=${encodeURIComponent(csrf)}`;
    const host = new URL(page.origin).host;
    const crossOrigin = await approve(pending.id, { Cookie: cookie, Origin: 'http://evil.example' }, body);
    assert.equal(crossOrigin.status, 403);
    const crossSite = await approve(
      pending.id,
      { Cookie: cookie, Origin: page.origin, 'Sec-Fetch-Site': 'cross-site' },
      body,
    );
    assert.equal(crossSite.status, 403);
    assert.equal((await approve(pending.id, { Cookie: cookie }, body)).status, 403, 'no Origin');
    const rebound = await approve(
      pending.id,
      {
        Cookie: cookie,
        Host: `evil.example:${new URL(page.origin).port}`,
        Origin: `http://evil.example:${new URL(page.origin).port}`,
      },
      body,
    );
    assert.equal(rebound.status, 403, 'a DNS-rebound name');
    const otherPort = await approve(
      pending.id,
      { Cookie: cookie, Host: '127.0.0.1:1', Origin: 'http://127.0.0.1:1' },
      body,
    );
    assert.equal(otherPort.status, 403);
    assert.ok(host.startsWith('127.0.0.1:'));
    assert.equal(await status(pending.id), 'pending');
  });

  it('refuses a missing, a wrong and another session’s CSRF token, and a GET that would decide', async () => {
    const origin = { Cookie: cookie, Origin: page.origin };
    assert.equal((await approve(pending.id, origin, '')).status, 403, 'missing');
    assert.equal((await approve(pending.id, origin, 'csrf=abc.def')).status, 403, 'wrong');
    const otherCookie = sessionCookie(await pageRequest(page.link()));
    const othersCsrf = csrfOf(await pageRequest(`${page.origin}/approvals`, { headers: { Cookie: otherCookie } }));
    assert.equal(
      (await approve(pending.id, origin, `csrf=${encodeURIComponent(othersCsrf)}`)).status,
      403,
      'bound to its own session',
    );
    const csrf = await freshCsrf();
    assert.equal(
      (await approve(pending.id, { Origin: page.origin }, `csrf=${encodeURIComponent(csrf)}`)).status,
      403,
      'no session',
    );
    const viaGet = await pageRequest(
      `${page.origin}/approvals/${pending.id}/approve?csrf=${encodeURIComponent(csrf)}`,
      {
        headers: { Cookie: cookie },
      },
    );
    assert.equal(viaGet.status, 405);
    assert.equal(await status(pending.id), 'pending');
  });

  it('refuses an unknown or malformed approval id', async () => {
    const csrf = await freshCsrf();
    const headers = { Cookie: cookie, Origin: page.origin };
    const unknown = await approve('ap-bbbbbbbbbb', headers, `csrf=${encodeURIComponent(csrf)}`);
    assert.equal(unknown.status, 409);
    assert.match(unknown.body, /No approval/);
    const malformed = await approve('ap-..%2f..', headers, `csrf=${encodeURIComponent(csrf)}`);
    assert.equal(malformed.status, 400);
    assert.equal(await status(pending.id), 'pending');
    assert.equal((await store.list()).length, 1);
  });

  it('the owner’s POST from the page approves it, as the page; a second answer is refused', async () => {
    const csrf = await freshCsrf();
    const later = await freshCsrf();
    const headers = { Cookie: cookie, Origin: page.origin, 'Sec-Fetch-Site': 'same-origin' };
    const done = await approve(pending.id, headers, `csrf=${encodeURIComponent(csrf)}`);
    assert.equal(done.status, 303);
    assert.equal(done.headers['location'], `/approvals/${pending.id}`);
    const approved = (await store.list()).find((approval) => approval.id === pending.id);
    assert.equal(approved?.status, 'approved');
    assert.equal(approved?.approved_by, 'page');
    const again = await pageRequest(`${page.origin}/approvals/${pending.id}/deny`, {
      method: 'POST',
      headers,
      body: `csrf=${encodeURIComponent(later)}`,
    });
    assert.equal(again.status, 409);
    assert.equal(await status(pending.id), 'approved');
  });

  it('wallet approvals open serves it alone: prints a working link, hands it to $BROWSER, stops on SIGTERM', async () => {
    const opener = join(home, 'record-url');
    writeFileSync(opener, `#!/bin/sh\necho "$1" > "${join(home, 'opened')}"\n`, { mode: 0o700 });
    const child = spawn(process.execPath, [WALLET_BIN, 'approvals', 'open', pending.id], {
      env: { ...process.env, WALLET_HOME: home, BROWSER: opener },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const link = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('approvals open printed no link')), 15_000);
      child.stdout.on('data', () => {
        const match = /^(http:\/\/127\.0\.0\.1:\d+\/approvals\/ap-[a-z2-7]{10}\?t=\S+)\n/.exec(stdout);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
    try {
      for (let tries = 0; tries < 100 && !existsSync(join(home, 'opened')); tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(readFileSync(join(home, 'opened'), 'utf8').trim(), link, 'the browser was given the link');
      const opened = await pageRequest(link);
      assert.equal(opened.status, 200);
      const shown = await pageRequest(`${new URL(link).origin}/approvals/${pending.id}`, {
        headers: { Cookie: sessionCookie(opened) },
      });
      assert.match(shown.body, new RegExp(`<section class="approval" id="${pending.id}">`));
      assert.equal((await pageRequest(link)).status, 403, 'once');
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0);
    }
  });

  it('listens on loopback only', async () => {
    await assert.rejects(
      serveApprovalPage({ dataDir: home, listen: { host: '0.0.0.0', port: 0 }, background: true }),
      /loopback only/,
    );
  });
});

describe('the page on wallet serve --http: the agent is told where, the owner says yes there', () => {
  const PASSPHRASE = 'page passphrase';
  const API_KEY = 'page-test-token-0123456789';
  let home: string;
  let served: HttpServe;
  let client: Client;

  const sign = async (): Promise<{ error?: ToolErrorMeta; result?: Record<string, unknown> }> => {
    const result = await client.callTool({
      name: 'evm_message_sign',
      arguments: { address: 'payer', message: HOSTILE },
    });
    if (result.isError) return { error: result._meta?.[ERROR_META_KEY] as ToolErrorMeta };
    return { result: result.structuredContent as Record<string, unknown> };
  };

  before(async () => {
    home = tempHome();
    await importAnvilAccount(home, PASSPHRASE, { walletAlias: 'w', accountAlias: 'payer' });
    served = await startHttpServe(['--passphrase-file', passphraseFileIn(home, PASSPHRASE, 'serve-pw')], {
      home,
      env: { MCP_API_KEY: API_KEY },
    });
    client = new Client({ name: 'agent', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: { Authorization: `Bearer ${API_KEY}` } },
      }),
    );
  });
  after(async () => {
    await client.close();
    await served.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('APPROVAL_REQUIRED names the page’s address (no token); a yes on the page lets it through once', async () => {
    const { error } = await sign();
    assert.equal(error?.code, 'APPROVAL_REQUIRED', JSON.stringify(error));
    const id = String(error?.details?.['approval_id']);
    const origin = served.url.replace(/\/mcp$/, '');
    assert.equal(error?.details?.['url'], `${origin}/approvals/${id}`);
    assert.match(error?.hint ?? '', new RegExp(`approval page \\(${origin}/approvals/${id}\\)`));
    assert.doesNotMatch(JSON.stringify(error), /\?t=/, 'the agent never gets a link that opens a session');

    const bare = await pageRequest(String(error?.details?.['url']));
    assert.equal(bare.status, 403, 'the address alone opens nothing');
    const announced = new RegExp(`approval ${id} waits for you; open it once at (\\S+)`).exec(served.stderr());
    assert.ok(announced?.[1], served.stderr());
    const opened = await pageRequest(announced[1]);
    const cookie = sessionCookie(opened);
    const shown = await pageRequest(`${origin}/approvals/${id}`, { headers: { Cookie: cookie } });
    assert.match(shown.body, /evm_message_sign/);
    assert.doesNotMatch(shown.body, /<script|<img/i);
    const done = await pageRequest(`${origin}/approvals/${id}/approve`, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: origin },
      body: `csrf=${encodeURIComponent(csrfOf(shown))}`,
    });
    assert.equal(done.status, 303, done.body);

    const signed = await sign();
    assert.equal(signed.error, undefined, JSON.stringify(signed.error));
    assert.match(String(signed.result?.['signature']), /^0x[0-9a-f]{130}$/);
    const again = await sign();
    assert.equal(again.error?.code, 'APPROVAL_REQUIRED', 'used once');
    const ran = auditLines(home).filter((line) => line['tool'] === 'evm_message_sign' && line['outcome'] !== 'asked');
    assert.deepEqual(
      ran.filter((line) => line['authority'] !== undefined).map((line) => [line['authority'], line['approval']]),
      [['page', id]],
    );
  });

  for (const mode of ['auto', 'legacy'] as const) {
    it(`a client that can open a URL is sent to the page (${mode === 'auto' ? '2026-07-28' : '2025'} era), and its call completes`, async () => {
      const origin = served.url.replace(/\/mcp$/, '');
      const opened: { url: string; mode: string }[] = [];
      const urlClient = new Client(
        { name: 'url-client', version: '1' },
        { capabilities: { elicitation: { url: {} } }, versionNegotiation: { mode } },
      );
      // The client's user is the owner: they open the page with their own link and approve.
      urlClient.setRequestHandler('elicitation/create', async (request) => {
        const params = request.params as { mode?: string; url?: string };
        opened.push({ url: String(params.url), mode: String(params.mode) });
        const id = /\/approvals\/(ap-[a-z2-7]{10})$/.exec(String(params.url))?.[1] ?? '';
        const link = new RegExp(`approval ${id} waits for you; open it once at (\\S+)`).exec(served.stderr())?.[1];
        const cookie = sessionCookie(await pageRequest(String(link)));
        const shown = await pageRequest(String(params.url), { headers: { Cookie: cookie } });
        const done = await pageRequest(`${origin}/approvals/${id}/approve`, {
          method: 'POST',
          headers: { Cookie: cookie, Origin: origin },
          body: `csrf=${encodeURIComponent(csrfOf(shown))}`,
        });
        assert.equal(done.status, 303);
        return { action: 'accept' };
      });
      await urlClient.connect(
        new StreamableHTTPClientTransport(new URL(served.url), {
          requestInit: { headers: { Authorization: `Bearer ${API_KEY}` } },
        }),
      );
      try {
        const result = await urlClient.callTool({
          name: 'evm_message_sign',
          arguments: { address: 'payer', message: `url mode ${mode}` },
        });
        assert.equal(result.isError, undefined, JSON.stringify(result._meta?.[ERROR_META_KEY]));
        assert.match(String((result.structuredContent as { signature?: string }).signature), /^0x[0-9a-f]{130}$/);
        assert.equal(opened.length, 1);
        assert.equal(opened[0]?.mode, 'url');
        assert.match(opened[0]?.url ?? '', new RegExp(`^${origin}/approvals/ap-[a-z2-7]{10}$`), 'the page, no token');
      } finally {
        await urlClient.close();
      }
    });
  }

  it('a client back from the page before the owner answered gets APPROVAL_REQUIRED, nothing signed', async () => {
    const urlClient = new Client({ name: 'url-client', version: '1' }, { capabilities: { elicitation: { url: {} } } });
    urlClient.setRequestHandler('elicitation/create', async () => ({ action: 'accept' }));
    await urlClient.connect(
      new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: { Authorization: `Bearer ${API_KEY}` } },
      }),
    );
    try {
      const result = await urlClient.callTool({
        name: 'evm_message_sign',
        arguments: { address: 'payer', message: 'not yet' },
      });
      assert.equal(result.isError, true);
      const meta = result._meta?.[ERROR_META_KEY] as ToolErrorMeta;
      assert.equal(meta.code, 'APPROVAL_REQUIRED');
      assert.match(String(meta.details?.['url']), /\/approvals\/ap-/);
    } finally {
      await urlClient.close();
    }
  });
});

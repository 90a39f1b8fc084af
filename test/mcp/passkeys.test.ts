/**
 * Passkeys without a browser: the store (owner-only, counters that only move on, a damaged file
 * counted as enrolled), what an enrolled passkey takes away (a terminal or plain page yes, a
 * client's elicitation answer, a page that enrolls), and today's spending against each cap as the
 * page shows it. The WebAuthn ceremonies themselves run in a real browser:
 * test/e2e/passkey-approval-browser.test.ts.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApprovalStore, type Approval } from '../../src/domain/policy/approvals.js';
import { PasskeyStore, type Passkey } from '../../src/domain/policy/passkeys.js';
import { SpendLedger } from '../../src/domain/policy/spend-ledger.js';
import { spendingToday } from '../../src/domain/policy/spending-today.js';
import { WalletServices } from '../../src/domain/services.js';
import { approvalChallenge, bindsApproval, relyingPartyOf } from '../../src/mcp/page/passkey.js';
import { serveApprovalPage, type ServedPage } from '../../src/mcp/page/serve.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { importAnvilAccount } from '../helpers/mcp.js';
import { csrfOf, pageRequest, sessionCookie } from '../helpers/page-http.js';
import { writeLocalPolicy } from '../helpers/policy.js';

const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';

function passkey(name: string, counter = 0): Passkey {
  return {
    id: randomBytes(32).toString('base64url'),
    name,
    public_key: randomBytes(77).toString('base64url'),
    counter,
    created: new Date().toISOString(),
  };
}

const SUMMARY = {
  tool: 'evm_funds_send',
  network: 'local',
  amount: '1000000000000000',
  unit: 'wei',
  text: 'Send ether',
  reason: 'no autonomy',
};

describe('the passkeys store', () => {
  let home: string;
  let store: PasskeyStore;
  before(() => {
    home = tempHome();
    store = new PasskeyStore(home);
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('enrolls into an owner-only file, refuses a name or credential twice, removes by name', async () => {
    assert.equal(store.enrolled(), false);
    const laptop = await store.add(passkey('laptop', 3));
    assert.equal(store.enrolled(), true);
    assert.equal(statSync(store.path).mode & 0o077, 0);
    await assert.rejects(store.add(passkey('laptop')), /already enrolled/);
    await assert.rejects(store.add({ ...passkey('other'), id: laptop.id }), /already enrolled/);
    await store.add(passkey('key'));
    assert.deepEqual(
      (await store.list()).map((each) => each.name),
      ['laptop', 'key'],
    );
    assert.equal((await store.remove('key')).name, 'key');
    await assert.rejects(store.remove('key'), /No passkey 'key'/);
  });

  it('records a use only when the counter moves on (a clone or a replay does not)', async () => {
    const [laptop] = await store.list();
    assert.ok(laptop);
    await assert.rejects(store.recordUse(laptop.id, 3), /may have been cloned/);
    await assert.rejects(store.recordUse(laptop.id, 2), /may have been cloned/);
    assert.equal((await store.recordUse(laptop.id, 4)).counter, 4);
    assert.equal((await store.list())[0]?.counter, 4);
    await assert.rejects(store.recordUse('not-enrolled-credential', 9), /not enrolled/);
    // An authenticator that keeps no counter (always 0) is taken as it is.
    const plain = await store.add(passkey('counterless', 0));
    assert.equal((await store.recordUse(plain.id, 0)).counter, 0);
    await store.remove('counterless');
  });

  it('a damaged file counts as enrolled and approves nothing', async () => {
    const saved = readFileSync(store.path, 'utf8');
    writeFileSync(store.path, '{"format":"wallet-passkeys","version":1,"passkeys":[{}]}', { mode: 0o600 });
    try {
      assert.equal(store.enrolled(), true);
      await assert.rejects(store.list(), /damaged/);
    } finally {
      writeFileSync(store.path, saved, { mode: 0o600 });
    }
  });
});

describe('a yes given before a passkey was enrolled', () => {
  it('is not used once one is: the call is refused and asks again', async () => {
    const home = tempHome();
    try {
      const approvals = new ApprovalStore(home);
      const digest = 'd'.repeat(64);
      const early = await approvals.request(digest, SUMMARY);
      assert.equal((await approvals.decide(early.id, 'approved', 'terminal')).approved_by, 'terminal');
      await new PasskeyStore(home).add(passkey('laptop'));
      const taken = await approvals.take(digest);
      assert.equal(taken.kind, 'refused');
      assert.match(taken.kind === 'refused' ? taken.error.message : '', /given without a passkey/);
      assert.equal((await approvals.take(digest)).kind, 'none', 'dropped: the next call asks again');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('once a passkey is enrolled, nothing else approves', () => {
  let home: string;
  let approvals: ApprovalStore;
  let pending: Approval;
  let page: ServedPage;

  before(async () => {
    home = tempHome();
    approvals = new ApprovalStore(home);
    pending = await approvals.request('b'.repeat(64), SUMMARY);
    await new PasskeyStore(home).add(passkey('laptop'));
    page = await serveApprovalPage({ dataDir: home, listen: { host: '127.0.0.1', port: 0 }, background: true });
  });
  after(async () => {
    await page.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('the store refuses a terminal or plain page yes; a no is still anyone’s', async () => {
    await assert.rejects(approvals.decide(pending.id, 'approved', 'terminal'), /A passkey is enrolled/);
    await assert.rejects(approvals.decide(pending.id, 'approved', 'page'), /A passkey is enrolled/);
    const other = await approvals.request('c'.repeat(64), SUMMARY);
    assert.equal((await approvals.decide(other.id, 'denied', 'terminal')).status, 'denied');
  });

  it('a client’s elicitation answer approves nothing, whatever trust_elicitation says', async () => {
    writeFileSync(join(home, 'config.json'), JSON.stringify({ approvals: { trust_elicitation: 'always' } }), {
      mode: 0o600,
    });
    const services = new WalletServices({ dataDir: home, env: {} });
    assert.equal(await services.trustsElicitation('stdio'), false);
    assert.equal(await services.trustsElicitation('http'), false);
    const without = tempHome();
    try {
      writeFileSync(join(without, 'config.json'), JSON.stringify({ approvals: { trust_elicitation: 'always' } }), {
        mode: 0o600,
      });
      assert.equal(await new WalletServices({ dataDir: without, env: {} }).trustsElicitation('http'), true);
    } finally {
      rmSync(without, { recursive: true, force: true });
    }
  });

  it('the page: links at localhost, a cookie and CSRF token approve nothing, it enrolls nothing', async () => {
    const link = page.link();
    const { port } = new URL(page.origin);
    assert.ok(link.startsWith(`http://localhost:${port}/approvals?t=`), link);
    assert.equal(page.urlOf(pending.id), `http://localhost:${port}/approvals/${pending.id}`);
    assert.throws(() => page.enrolLink(), /enrolls no passkey/);
    // Raw requests to 127.0.0.1, named as the browser names the page.
    const at = (path: string) => `${page.origin}${path}`;
    const host = { Host: `localhost:${port}` };
    const cookie = sessionCookie(await pageRequest(link.replace('localhost', '127.0.0.1'), { headers: host }));
    const shown = await pageRequest(at('/approvals'), { headers: { ...host, Cookie: cookie } });
    assert.equal(shown.status, 200);
    assert.match(shown.body, /data-ceremony="get"/);
    assert.match(shown.body, /<script src="\/approvals\/passkey\.js" defer><\/script>/);
    assert.match(String(shown.headers['content-security-policy']), /script-src 'self'/);
    assert.doesNotMatch(String(shown.headers['content-security-policy']), /unsafe|https?:/);
    const plain = await pageRequest(at(`/approvals/${pending.id}/approve`), {
      method: 'POST',
      headers: { ...host, Cookie: cookie, Origin: `http://localhost:${port}` },
      body: `csrf=${encodeURIComponent(csrfOf(shown))}`,
    });
    assert.equal(plain.status, 403);
    assert.match(plain.body, /No passkey answer/);
    const forged = await pageRequest(at(`/approvals/${pending.id}/approve`), {
      method: 'POST',
      headers: { ...host, Cookie: cookie, Origin: `http://localhost:${port}` },
      body: `csrf=${encodeURIComponent(csrfOf(shown))}&credential=${encodeURIComponent('{"id":"x","rawId":"x","type":"public-key","clientExtensionResults":{},"response":{"clientDataJSON":"e30","authenticatorData":"AA","signature":"AA"}}')}`,
    });
    assert.equal(forged.status, 403, 'an assertion by no enrolled passkey');
    const enrol = await pageRequest(at('/approvals/passkeys/new'), { headers: { ...host, Cookie: cookie } });
    assert.equal(enrol.status, 404, 'only wallet approvals passkey add serves an enrolment');
    const script = await pageRequest(at('/approvals/passkey.js'), { headers: host });
    assert.equal(script.status, 200);
    assert.match(String(script.headers['content-type']), /text\/javascript/);
    assert.doesNotMatch(script.body, /\beval\(|new Function|innerHTML/);
    assert.equal((await approvals.list()).find((each) => each.id === pending.id)?.status, 'pending');
  });

  it('a page on [::1] answers at localhost, where its passkeys are', async (t) => {
    let v6: ServedPage;
    try {
      v6 = await serveApprovalPage({ dataDir: home, listen: { host: '::1', port: 0 }, background: true });
    } catch (error) {
      process.stderr.write(`*** SKIPPED: no IPv6 loopback here (${String(error)})\n`);
      t.skip('no IPv6 loopback');
      return;
    }
    try {
      const { port } = new URL(v6.origin);
      const link = v6.link();
      assert.ok(link.startsWith(`http://localhost:${port}/approvals?t=`), link);
      const opened = await pageRequest(link.replace(`localhost:${port}`, `[::1]:${port}`), {
        headers: { Host: `localhost:${port}` },
      });
      assert.notEqual(opened.status, 403, "the passkeys' origin is one of the page's own names");
    } finally {
      await v6.close();
    }
  });

  it('a challenge binds its approval and exact call', () => {
    const challenge = approvalChallenge(pending);
    assert.equal(bindsApproval(challenge, pending), true);
    assert.equal(bindsApproval(challenge, { ...pending, id: 'ap-aaaaaaaaaa' }), false);
    assert.equal(bindsApproval(challenge, { ...pending, digest: 'd'.repeat(64) }), false);
    assert.notEqual(approvalChallenge(pending), challenge, 'each one fresh');
    assert.deepEqual(relyingPartyOf(new URL('http://127.0.0.1:4444')), {
      id: 'localhost',
      origin: 'http://localhost:4444',
    });
  });
});

describe("today's spending against each cap", () => {
  let home: string;
  before(() => {
    home = tempHome();
    writeLocalPolicy(home, {
      max_per_tx_wei: '50000000000000000',
      max_per_24h_wei: '90000000000000000',
      autonomous: { max_per_tx_wei: '1000000000000000', max_per_24h_wei: '2000000000000000' },
      tokens: { [TOKEN]: { max_per_tx: '100', max_per_24h: '1000' } },
    });
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('reads the ledgers per chain and per token, agents apart, changing nothing', async () => {
    const networks = (await new WalletServices({ dataDir: home, env: {} }).networks()).networks;
    const local = networks.find((network) => network.chain === 'evm' && network.network === 'local');
    const ledger = new SpendLedger(home, 'evm', `chain-${local?.chainId}`);
    const now = Date.now();
    await ledger.update(async () => ({
      entries: [
        { key: 'k1', txid: null, amount: 3_000_000_000_000_000n, time: now - 1000, by: 'owner' },
        { key: 'k2', txid: null, amount: 1_000_000_000_000_000n, time: now - 500, by: 'agent' },
        { key: 'old', txid: null, amount: 7n, time: now - 25 * 3600_000, by: 'owner' },
      ],
      result: undefined,
    }));
    await new SpendLedger(home, 'evm', `chain-${local?.chainId}-${TOKEN.toLowerCase()}`).update(async () => ({
      entries: [{ key: 't1', txid: null, amount: 250n, time: now - 10, by: 'owner' }],
      result: undefined,
    }));
    const before = readFileSync(ledger.path, 'utf8');
    const rows = await spendingToday(new WalletServices({ dataDir: home, env: {} }).ledgers, networks);
    assert.equal(readFileSync(ledger.path, 'utf8'), before, 'read-only');
    const ether = rows.find((row) => row.asset === 'ether');
    assert.deepEqual(ether?.networks, ['local']);
    assert.equal(ether?.spent, '0.004 ether (4000000000000000 wei)', 'the last 24 hours only');
    assert.equal(ether?.spentByAgents, '0.001 ether (1000000000000000 wei)');
    assert.equal(ether?.capPer24h, '0.09 ether (90000000000000000 wei)');
    assert.equal(ether?.agentCapPer24h, '0.002 ether (2000000000000000 wei)');
    const token = rows.find((row) => row.asset === TOKEN);
    assert.equal(token?.spent, '250 base units');
    assert.equal(token?.capPer24h, '1000 base units');
    assert.equal(token?.capPerTx, '100 base units');
    assert.equal(rows.length, 2, 'networks without a policy have no caps to show');

    const page = await serveApprovalPage({ dataDir: home, listen: { host: '127.0.0.1', port: 0 }, background: true });
    try {
      const cookie = sessionCookie(await pageRequest(page.link()));
      const shown = await pageRequest(`${page.origin}/approvals`, { headers: { Cookie: cookie } });
      assert.match(shown.body, /<table id="spending">/);
      assert.match(shown.body, /0\.004 ether \(4000000000000000 wei\)<\/td><td>0\.09 ether/);
      assert.match(shown.body, /250 base units<\/td><td>1000 base units/);
      assert.doesNotMatch(String(shown.headers['content-security-policy']), /script-src/, 'no passkey, no script');
    } finally {
      await page.close();
    }
  });
});

describe('wallet approvals passkey list and remove', () => {
  const PASSPHRASE = 'passkey cli passphrase';
  let home: string;
  before(async () => {
    home = tempHome();
    await importAnvilAccount(home, PASSPHRASE, { walletAlias: 'w', accountAlias: 'payer' });
    await new PasskeyStore(home).add(passkey('laptop', 5));
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('lists without the public keys; removing takes the keystore passphrase, never argv', async () => {
    const listed = await wallet(['approvals', 'passkey', 'list', '--json'], { home });
    assert.equal(listed.code, 0, listed.stderr);
    const shown = JSON.parse(listed.stdout) as { passkeys: Record<string, unknown>[] };
    assert.deepEqual(
      shown.passkeys.map((each) => [each['name'], each['counter']]),
      [['laptop', 5]],
    );
    assert.doesNotMatch(listed.stdout, /public_key/);

    const none = await wallet(['approvals', 'passkey', 'remove', 'laptop'], { home });
    assert.notEqual(none.code, 0);
    assert.match(none.stderr, /only with the keystore passphrase/);
    const wrong = await wallet(
      ['approvals', 'passkey', 'remove', 'laptop', '--passphrase-file', passphraseFileIn(home, 'wrong one', 'bad')],
      { home },
    );
    assert.notEqual(wrong.code, 0);
    assert.match(wrong.stderr, /not the keystore passphrase/);
    assert.equal(new PasskeyStore(home).enrolled(), true, 'still enrolled');

    const removed = await wallet(['approvals', 'passkey', 'remove', 'laptop', '--passphrase-stdin'], {
      home,
      stdin: `${PASSPHRASE}\n`,
    });
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /Removed the passkey laptop\. No passkey is left/);
    assert.equal(new PasskeyStore(home).enrolled(), false);
    assert.doesNotMatch(removed.stdout + removed.stderr, new RegExp(PASSPHRASE));
  });
});

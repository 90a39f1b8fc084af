/**
 * The keystore, its address indexes and the passkeys in a PostgreSQL state store, against a real
 * cluster (test/helpers/postgres.ts): `wallet state import` of a data directory with wallets,
 * an imported key, a spend ledger, audit lines and a passkey, after which a server with an EMPTY
 * data directory answers every read tool as the files did and signs the same; running it again
 * imports nothing; a record the store holds differently refuses it all; two replicas creating
 * addresses at once never hand out one index twice; a passkey counter recorded on one replica
 * refuses its replay on another; the database dump holds no mnemonic, key or passphrase; a
 * passphrase change re-seals every row, and a wallet deleted on one replica is gone for all.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { appendFileSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WalletError } from '../../src/domain/errors.js';
import { appendAuditRecord } from '../../src/domain/policy/audit-log.js';
import { PasskeyStore } from '../../src/domain/policy/passkeys.js';
import { SpendLedger } from '../../src/domain/policy/spend-ledger.js';
import { filePasskeys } from '../../src/domain/state/files/passkeys.js';
import { SCHEMA_VERSION } from '../../src/domain/state/pg/migrate.js';
import { openPgStore } from '../../src/domain/state/pg/store.js';
import { shareState, unshareState } from '../../src/domain/state/shared.js';
import { resolveStateLocation } from '../../src/domain/state/state-url.js';
import type { StateStore } from '../../src/domain/state/store.js';
import { ANVIL_MNEMONIC } from '../helpers/anvil.js';
import { tempHome, wallet } from '../helpers/io.js';
import { failureCode, importAnvilInto, localServer, type ToolCaller } from '../helpers/mcp.js';
import { findPostgres, startPostgres, type PgCluster } from '../helpers/postgres.js';

const bin = findPostgres();
if (!bin) {
  console.error(
    '\n!!! SKIPPING the keystore-in-PostgreSQL tests: initdb and pg_ctl are not installed.\n!!! .ci/run installs them (apt-get install -y postgresql); install it to run these tests.\n',
  );
}

const PASSPHRASE = 'keystore store test passphrase';
const NEW_PASSPHRASE = 'the replaced keystore passphrase';
/** Anvil's tenth account's key (m/44'/60'/0'/0/9 of ANVIL_MNEMONIC), imported on its own. */
const IMPORTED_KEY = '2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6';
const PASSKEY = {
  id: 'Y3JlZGVudGlhbC1pZC1mb3ItdGhlLXRlc3Q',
  name: 'laptop',
  public_key: 'cHVibGljLWtleS1ieXRlcy1mb3ItdGhlLXRlc3QtMDEyMzQ1Njc4OQ',
  counter: 3,
  created: '2026-11-01T10:00:00.000Z',
};

type Row = Record<string, unknown>;

describe('the keystore and passkeys in a PostgreSQL state store', { skip: bin ? false : 'no PostgreSQL' }, () => {
  let pg: PgCluster;
  let env: Record<string, string>;
  let source: string;
  let freshMnemonic: string;
  const homes: string[] = [];
  const servers: ToolCaller[] = [];

  /** A server (the CLI's in-process one) on `home`, through the store when `shared`. */
  const serverOn = async (home: string, shared: boolean): Promise<ToolCaller> => {
    const server = await localServer({ env: { WALLET_HOME: home, ...(shared ? env : {}) }, passphrase: PASSPHRASE });
    servers.push(server);
    return server;
  };
  /** The whole database's rows, as pg_dump writes them. */
  const dumpText = (): string => {
    const dump = spawnSync(
      join(bin ?? '', 'pg_dump'),
      ['-h', '127.0.0.1', '-p', String(pg.port), '-U', 'wallet', '--data-only', 'wallet'],
      { encoding: 'utf8', env: { PATH: process.env['PATH'] ?? '', PGPASSWORD: pg.password }, maxBuffer: 64 * 2 ** 20 },
    );
    assert.equal(dump.status, 0, dump.stderr);
    return dump.stdout;
  };
  const emptyHome = (): string => {
    const home = tempHome();
    homes.push(home);
    return home;
  };
  const counts = (): Row => {
    const [wallets, keys, passkeys, audit, entries] = pg
      .sql(
        `SELECT (SELECT count(*) FROM wallet_keystore_wallets) || ' ' || (SELECT count(*) FROM wallet_keystore_keys)
         || ' ' || (SELECT count(*) FROM wallet_passkeys) || ' ' || (SELECT count(*) FROM wallet_audit)
         || ' ' || (SELECT count(*) FROM wallet_ledger_entries)`,
      )
      .trim()
      .split(' ')
      .map(Number);
    return { wallets, keys, passkeys, audit, entries };
  };

  before(async () => {
    pg = await startPostgres(bin ?? '');
    env = { WALLET_STATE_URL: pg.url, PGPASSWORD: pg.password };
    const migrated = await wallet(['state', 'migrate', '--json'], { env });
    assert.equal(migrated.code, 0, migrated.stderr);
    assert.equal((JSON.parse(migrated.stdout) as { to: number }).to, SCHEMA_VERSION);

    // A data directory as one machine has it: two wallets (EVM accounts, issued addresses), an
    // imported key, a spend ledger, audit lines, a passkey.
    source = emptyHome();
    const files = await serverOn(source, false);
    await importAnvilInto(files, { walletAlias: 'w', accountAlias: 'a0' });
    await files.call('evm_account_create', { wallet_id: 'w', alias: 'a1' });
    for (let i = 0; i < 3; i++) await files.call('core_address_create', { wallet_id: 'w' });
    await files.call('core_wallet_create', { alias: 'fresh', network: 'testnet' });
    await files.call('evm_account_import', { private_key: IMPORTED_KEY, alias: 'k9' });
    freshMnemonic = (await files.call<{ mnemonic: string }>('core_wallet_export', { wallet_id: 'fresh' })).mnemonic;
    assert.equal(freshMnemonic.split(' ').length >= 12, true);
    await new SpendLedger(source, 'evm', 'chain-31337').update(async (recent, now) => ({
      entries: [...recent, { key: 'spend-1', txid: '0xabc', amount: 1234n, time: now - 60_000, by: 'agent' }],
      result: undefined,
    }));
    for (const tool of ['evm_funds_send', 'core_funds_send']) {
      await appendAuditRecord(source, { time: new Date().toISOString(), tool, outcome: 'sent', network: 'local' });
    }
    // The same line twice: both are kept, and a second import adds neither again.
    const line = readFileSync(join(source, 'audit.log'), 'utf8').trim().split('\n').at(-1) ?? '';
    appendFileSync(join(source, 'audit.log'), `${line}\n`);
    await filePasskeys(source).change((passkeys) => ({ passkeys: [...passkeys, PASSKEY], result: undefined }));
  });
  after(async () => {
    await Promise.allSettled(servers.map((server) => server.close()));
    for (const home of homes) rmSync(home, { recursive: true, force: true });
    pg?.remove();
  });

  it('imports a data directory; an empty data directory then answers every read tool the same, and signs', async () => {
    const auditLines = readFileSync(join(source, 'audit.log'), 'utf8').trim().split('\n').length;
    const imported = await wallet(['state', 'import', '--json'], { env, home: source });
    assert.equal(imported.code, 0, imported.stderr);
    const summary = JSON.parse(imported.stdout) as Record<string, Row>;
    assert.deepEqual(summary['wallets'], { imported: 2, merged: 0, unchanged: 0 });
    assert.deepEqual(summary['imported_keys'], { imported: 1, merged: 0, unchanged: 0 });
    assert.deepEqual(summary['ledger_entries'], { imported: 1, merged: 0, unchanged: 0 });
    assert.deepEqual(summary['audit_lines'], { imported: auditLines, merged: 0, unchanged: 0 });
    assert.deepEqual(summary['passkeys'], { imported: 1, merged: 0, unchanged: 0 });
    assert.equal(summary['files_left_in_place'], true);
    assert.equal(readdirSync(join(source, 'keystore')).filter((name) => name.endsWith('.json')).length, 3);
    // Before any call through the store (a signature is audited there).
    const status = await wallet(['state', 'status', '--json'], { env });
    const shown = JSON.parse(status.stdout) as Row;
    assert.equal(shown['keystore_wallets'], 2);
    assert.equal(shown['keystore_imported_keys'], 1);
    assert.equal(shown['passkeys'], 1);
    assert.equal(shown['audit_lines'], auditLines);
    assert.equal(shown['ledger_entries_24h'], 1);
    const spent = pg.sql("SELECT amount || ' ' || by_whom FROM wallet_ledger_entries WHERE key = 'spend-1'").trim();
    assert.equal(spent, '1234 agent');

    const files = await serverOn(source, false);
    const store = await serverOn(emptyHome(), true);
    const reads: [string, Record<string, unknown>][] = [
      ['core_wallets_list', {}],
      ['evm_accounts_list', {}],
      ['evm_accounts_list', { wallet_id: 'w' }],
      ['core_addresses_list', { wallet_id: 'w' }],
      ['core_addresses_list', { wallet_id: 'fresh' }],
      ['evm_message_sign', { address: 'a1', message: 'the same key' }],
      ['evm_message_sign', { address: 'k9', message: 'the same key' }],
    ];
    for (const [tool, args] of reads) {
      assert.deepEqual(await store.call(tool, args), await files.call(tool, args), `${tool} ${JSON.stringify(args)}`);
    }
    // A data directory whose files the store does not hold: the miss says they are not read.
    const onSource = await serverOn(source, true);
    await assert.rejects(
      onSource.call('core_addresses_list', { wallet_id: 'nowhere' }),
      (error: Error) => /WALLET_NOT_FOUND/.test(error.message) && /wallet state import/.test(error.message),
    );
    const address = (await files.call<{ addresses: { address: string }[] }>('core_addresses_list', { wallet_id: 'w' }))
      .addresses[0]?.address;
    const signArgs = { wallet_id: 'w', address, message: 'the same key' };
    assert.deepEqual(await store.call('core_message_sign', signArgs), await files.call('core_message_sign', signArgs));

    // Again: only the audit lines the files server wrote since (its signatures), then nothing at all.
    const added = readFileSync(join(source, 'audit.log'), 'utf8').trim().split('\n').length - auditLines;
    assert.equal(added, 3, 'the files server audits its three signatures');
    const importAgain = async (): Promise<Record<string, Row>> => {
      const again = await wallet(['state', 'import', '--json'], { env, home: source });
      assert.equal(again.code, 0, again.stderr);
      return JSON.parse(again.stdout) as Record<string, Row>;
    };
    assert.deepEqual((await importAgain())['audit_lines'], { imported: added, merged: 0, unchanged: auditLines });
    const before = counts();
    const third = await importAgain();
    for (const kind of ['wallets', 'imported_keys', 'ledger_entries', 'audit_lines', 'passkeys']) {
      assert.equal(third[kind]?.['imported'], 0, kind);
      assert.equal(third[kind]?.['merged'], 0, kind);
    }
    assert.deepEqual(counts(), before);
  });

  it('two replicas creating addresses and accounts at once never hand out one index twice', async () => {
    const a = await serverOn(emptyHome(), true);
    const b = await serverOn(emptyHome(), true);
    const first = (await a.call<{ index: number }>('core_address_create', { wallet_id: 'w' })).index;
    const made = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        (i % 2 === 0 ? a : b).call<{ index: number; address: string }>('core_address_create', { wallet_id: 'w' }),
      ),
    );
    assert.deepEqual(
      made.map((each) => each.index).sort((x, y) => x - y),
      Array.from({ length: 16 }, (_, i) => first + 1 + i),
    );
    assert.equal(new Set(made.map((each) => each.address)).size, 16);
    const accounts = await Promise.all(
      ['c0', 'c1', 'c2', 'c3'].map((alias, i) =>
        (i % 2 === 0 ? a : b).call<{ address: string; index: number }>('evm_account_create', { wallet_id: 'w', alias }),
      ),
    );
    assert.equal(new Set(accounts.map((each) => each.address.toLowerCase())).size, 4);
    assert.equal(new Set(accounts.map((each) => each.index)).size, 4);
    // The files never saw any of it: the store is where the replicas agree.
    const local = await serverOn(source, false);
    const fromFiles = await local.call<{ accounts: unknown[] }>('evm_accounts_list', { wallet_id: 'w' });
    assert.equal(fromFiles.accounts.length, 2);
  });

  it('a record the store holds differently refuses the whole import, nothing overwritten', async () => {
    const other = emptyHome();
    const files = await localServer({ env: { WALLET_HOME: other }, passphrase: 'another passphrase entirely' });
    try {
      await files.call('core_wallet_import', {
        alias: 'w',
        network: 'regtest',
        mnemonic: ANVIL_MNEMONIC,
        discover: false,
      });
      await files.call('core_wallet_create', { alias: 'other', network: 'testnet' });
    } finally {
      await files.close();
    }
    const before = counts();
    const refused = await wallet(['state', 'import'], { env, home: other });
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /wallet 'w' .*another passphrase\?.*Nothing was imported/);
    assert.deepEqual(counts(), before, 'a refused import changed the store');
  });

  it('a passkey counter recorded on one replica refuses its replay on another', async () => {
    const location = resolveStateLocation(env, undefined);
    assert.ok(location);
    const [dirA, dirB] = [emptyHome(), emptyHome()];
    const stores: StateStore[] = [await openPgStore(location, [], dirA), await openPgStore(location, [], dirB)];
    shareState(dirA, stores[0] as StateStore);
    shareState(dirB, stores[1] as StateStore);
    try {
      const [a, b] = [new PasskeyStore(dirA), new PasskeyStore(dirB)];
      assert.equal(b.enrolled(), true, 'the imported passkey is enrolled for every replica');
      assert.equal((await b.list())[0]?.counter, PASSKEY.counter);
      await a.recordUse(PASSKEY.id, 7);
      await assert.rejects(
        b.recordUse(PASSKEY.id, 7),
        (error) =>
          error instanceof WalletError && error.code === 'POLICY_VIOLATION' && /not above 7/.test(error.message),
      );
      assert.equal((await b.recordUse(PASSKEY.id, 8)).counter, 8);
      // Removed on one replica: the other sees none enrolled within its refresh.
      const removed = await b.remove(PASSKEY.name);
      assert.equal(removed.id, PASSKEY.id);
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      assert.equal(a.enrolled(), false);
      await a.add({ ...PASSKEY, counter: 8 });
      assert.equal(a.enrolled(), true);
      // The owner's command works on the store too, from any data directory.
      const cli = await wallet(['approvals', 'passkey', 'list', '--json'], { env, home: emptyHome() });
      assert.equal(cli.code, 0, cli.stderr);
      const shownKeys = (JSON.parse(cli.stdout) as { passkeys: Row[] }).passkeys;
      assert.deepEqual(
        shownKeys.map((each) => [each['name'], each['counter']]),
        [[PASSKEY.name, 8]],
      );
    } finally {
      for (const [dir, store] of [
        [dirA, stores[0]],
        [dirB, stores[1]],
      ] as const) {
        if (store) unshareState(dir, store);
        await store?.close();
      }
    }
  });

  it('the database never sees a mnemonic, a private key or the passphrase', () => {
    const text = dumpText();
    // What must be there (the dump is of the right rows): the wallets, their public keys, ciphertext.
    assert.match(text, /wallet_keystore_wallets/);
    assert.match(text, /"ciphertext"/);
    assert.match(text, /"xpub": "[a-z]pub/);
    for (const secret of [ANVIL_MNEMONIC, freshMnemonic, IMPORTED_KEY, PASSPHRASE]) {
      assert.ok(!text.includes(secret), 'a secret is in the database');
    }
    assert.ok(!text.includes(freshMnemonic.split(' ').slice(0, 3).join(' ')), 'mnemonic words are in the database');
    assert.ok(!/\b[xt]prv[1-9A-HJ-NP-Za-km-z]{20,}/.test(text), 'an extended private key is in the database');
  });

  it('a passphrase change re-seals every row at once; a deletion is seen by every replica', async () => {
    const a = await serverOn(emptyHome(), true);
    const changed = await a.call<{ wallets: string[]; imported_keys: number }>('core_wallet_passphrase_change', {
      new_passphrase: NEW_PASSPHRASE,
    });
    assert.deepEqual([...changed.wallets].sort(), ['fresh', 'w']);
    assert.equal(changed.imported_keys, 1);
    const b = await localServer({ env: { WALLET_HOME: emptyHome(), ...env }, passphrase: NEW_PASSPHRASE });
    servers.push(b);
    for (const address of ['a0', 'k9']) {
      assert.equal(await failureCode(a.call('evm_message_sign', { address, message: 'm' })), 'WALLET_LOCKED');
      await b.call('evm_message_sign', { address, message: 'm' });
    }
    const listed = async (server: ToolCaller) =>
      (await server.call<{ wallets: { alias: string; wallet_id: string }[] }>('core_wallets_list', {})).wallets;
    const fresh = (await listed(a)).find((each) => each.alias === 'fresh');
    assert.ok(fresh);
    await b.call('core_wallet_delete', {
      wallet_id: 'fresh',
      network: 'testnet',
      confirm_fingerprint: fresh.wallet_id,
    });
    assert.deepEqual(
      (await listed(a)).map((each) => each.alias),
      ['w'],
    );
    const text = dumpText();
    for (const secret of [NEW_PASSPHRASE, ANVIL_MNEMONIC, IMPORTED_KEY]) assert.ok(!text.includes(secret));
  });
});

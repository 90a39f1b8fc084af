import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { WalletError } from '../../src/domain/errors.js';
import { statedPolicies, WalletServices } from '../../src/domain/services.js';
import { firstDifference } from '../../src/domain/state/pg/policy.js';
import { resolveStateLocation } from '../../src/domain/state/state-url.js';
import { tempHome } from '../helpers/io.js';

const refusal = (run: () => unknown, pattern: RegExp): void => {
  assert.throws(
    run,
    (error: unknown) => error instanceof WalletError && error.code === 'INVALID_PARAM' && pattern.test(error.message),
  );
};

describe('the state store location', () => {
  it('is the files without a URL; WALLET_STATE_URL wins over state.url', () => {
    assert.equal(resolveStateLocation({}, undefined), undefined);
    assert.equal(resolveStateLocation({ WALLET_STATE_URL: '' }, {}), undefined);
    const fromConfig = resolveStateLocation({}, { url: 'postgres://app@db:6543/wallet' });
    assert.equal(fromConfig?.shown, 'db:6543/wallet');
    const fromEnv = resolveStateLocation(
      { WALLET_STATE_URL: 'postgresql://app@other/w?sslmode=verify-full' },
      { url: 'postgres://app@db/wallet' },
    );
    assert.equal(fromEnv?.shown, 'other:5432/w');
    assert.equal(fromEnv?.password, undefined);
  });

  it('refuses a password in the URL without echoing it, another scheme, and an unknown sslmode', () => {
    const secret = 'hunter2-hunter2';
    try {
      resolveStateLocation({ WALLET_STATE_URL: `postgres://app:${secret}@db/wallet` }, undefined);
      assert.fail('a password in the URL was taken');
    } catch (error) {
      assert.ok(error instanceof WalletError && /holds a password/.test(error.message));
      assert.ok(!`${error.message} ${error.hint}`.includes(secret));
    }
    refusal(() => resolveStateLocation({}, { url: 'mysql://app@db/wallet' }), /must be a postgres:\/\/ URL/);
    refusal(() => resolveStateLocation({}, { url: 'postgres://app@db/w?sslmode=maybe' }), /unknown sslmode/);
    refusal(() => resolveStateLocation({}, { url: 'not a url' }), /is not a URL/);
  });

  it('refuses a password (or another credential) in the query string, without echoing it', () => {
    const secret = 'hunter3-hunter3';
    for (const query of [`password=${secret}`, `sslmode=require&PassWord=${secret}`, `sslpassword=${secret}`]) {
      try {
        resolveStateLocation({ WALLET_STATE_URL: `postgres://app@db/wallet?${query}` }, undefined);
        assert.fail(`?${query} was taken`);
      } catch (error) {
        assert.ok(error instanceof WalletError && error.code === 'INVALID_PARAM', String(error));
        assert.match(error.message, /password parameter/);
        assert.ok(!`${error.message} ${error.hint}`.includes(secret));
      }
    }
    refusal(() => resolveStateLocation({}, { url: 'postgres://app@db/w?passfile=/tmp/p' }), /passfile parameter/);
  });

  it('takes the password from PGPASSWORD or an owner-only file, never a file others can read', () => {
    const url = 'postgres://app@db/wallet';
    assert.equal(resolveStateLocation({ PGPASSWORD: 'from-env' }, { url })?.password, 'from-env');
    const dir = tempHome();
    const file = join(dir, 'db-password');
    writeFileSync(file, 'from-file\n', { mode: 0o600 });
    assert.equal(resolveStateLocation({ PGPASSWORD: 'x' }, { url, password_file: file })?.password, 'from-file');
    const open = join(dir, 'open-password');
    writeFileSync(open, 'p\n', { mode: 0o644 });
    assert.throws(() => resolveStateLocation({ WALLET_STATE_PASSWORD_FILE: open }, { url }));
  });
});

describe('a server opening its shared state', () => {
  it('refuses to start on a wrong state setting, not just the first call', async () => {
    const dataDir = tempHome();
    for (const [url, pattern] of [
      ['postgres://app:pw-in-url@127.0.0.1:1/wallet', /holds a password/],
      ['postgres://app@127.0.0.1:1/wallet?password=pw', /password parameter/],
      ['postgres://app@127.0.0.1:1/wallet?sslmode=maybe', /unknown sslmode/],
    ] as const) {
      const services = new WalletServices({ dataDir, env: { WALLET_STATE_URL: url } });
      await assert.rejects(
        services.openSharedState(),
        (error: unknown) =>
          error instanceof WalletError && error.code === 'INVALID_PARAM' && pattern.test(error.message),
      );
    }
    const open = join(dataDir, 'open-password');
    writeFileSync(open, 'p\n', { mode: 0o644 });
    const services = new WalletServices({
      dataDir,
      env: { WALLET_STATE_URL: 'postgres://app@127.0.0.1:1/wallet', WALLET_STATE_PASSWORD_FILE: open },
    });
    await assert.rejects(services.openSharedState(), /can be read by others/);
    // No state setting: nothing to open, and nothing refused.
    await new WalletServices({ dataDir, env: {} }).openSharedState();
  });
});

describe("a replica's policy against the store's", () => {
  it('names the first key that differs', () => {
    const recorded = { max_per_tx_wei: '5', autonomous: { max_per_tx_wei: '1', max_per_24h_wei: '2' } };
    assert.equal(firstDifference('p', recorded, structuredClone(recorded)), undefined);
    assert.equal(
      firstDifference('p', recorded, { ...recorded, autonomous: { max_per_tx_wei: '1', max_per_24h_wei: '3' } }),
      'p.autonomous.max_per_24h_wei',
    );
    assert.equal(firstDifference('p', recorded, { ...recorded, max_fee_wei: '9' }), 'p.max_fee_wei');
    assert.equal(
      firstDifference('p', { allowed_recipients: ['a'] }, { allowed_recipients: ['b'] }),
      'p.allowed_recipients',
    );
  });

  it('is stated per network, from config.json', () => {
    const stated = statedPolicies({
      evm: { networks: { local: { policy: { max_per_tx_wei: '1' } }, other: { url: 'http://127.0.0.1:1' } } },
    });
    assert.deepEqual(stated, [{ key: 'evm.networks.local.policy', policy: { max_per_tx_wei: '1' } }]);
  });
});

/**
 * platform_identity_get through the CLI in-process, on recorded vectors whose proofs the real SDK
 * verifies (test/helpers/platform-cli.ts): by identifier, by public key hash, and its refusals.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { wallet } from '../../helpers/io.js';
import { cli, homeFor, IDENTITY_SESSION, onFakePlatform } from '../../helpers/platform-cli.js';
import { platformSdkProblem, RECORDED } from '../../helpers/platform-dapi.js';
import { freePort } from '../../helpers/ports.js';

const sdkProblem = await platformSdkProblem();

describe('platform_identity_get', { skip: sdkProblem ?? false }, () => {
  it('answers from proved vectors by identifier: its id, network and public keys', () =>
    onFakePlatform(IDENTITY_SESSION, async (dapi, home) => {
      const identity = await cli(dapi, home, ['platform-identity-get', '--identity-id', RECORDED.identityId]);
      assert.equal(identity.code, 0, identity.stderr);
      assert.equal(identity.json?.['identity_id'], RECORDED.identityId);
      assert.equal(identity.json?.['network'], 'local');
      const keys = identity.json?.['public_keys'] as { purpose: string; data: string }[];
      assert.ok(keys.length > 0 && keys.every((key) => /^[0-9a-f]+$/.test(key.data)));
      assert.deepEqual(dapi.unmatched, []);
    }));

  it('finds the identity by a public key hash; refuses both ways at once', () =>
    onFakePlatform(IDENTITY_SESSION, async (dapi, home) => {
      const byKey = await cli(dapi, home, ['platform-identity-get', '--public-key-hash', RECORDED.identityKeyHash]);
      assert.equal(byKey.code, 0, byKey.stderr);
      assert.equal(byKey.json?.['identity_id'], RECORDED.identityId);
      const both = await cli(dapi, home, [
        'platform-identity-get',
        '--identity-id',
        RECORDED.identityId,
        '--public-key-hash',
        RECORDED.identityKeyHash,
      ]);
      assert.equal(both.code, 2, both.stderr);
      assert.match(both.stderr, /INVALID_PARAM: Give one of identity_id and public_key_hash/);
      assert.deepEqual(dapi.unmatched, []);
    }));

  it("an identifier that is no 32-byte one is the caller's mistake: INVALID_PARAM (exit 2), not a refused answer", () =>
    onFakePlatform(IDENTITY_SESSION, async (dapi, home) => {
      const result = await cli(dapi, home, ['platform-identity-get', '--identity-id', 'z'.repeat(44)]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /error: INVALID_PARAM: Platform refused the request for /);
    }));

  it('an unreachable DAPI: BACKEND_UNAVAILABLE (exit 1), the hint naming the config keys', async () => {
    const home = homeFor(`http://127.0.0.1:${await freePort()}`);
    try {
      const result = await wallet(['platform-identity-get', '--identity-id', RECORDED.identityId], { home });
      assert.notEqual(result.code, 0);
      assert.match(result.stderr, /BACKEND_UNAVAILABLE: Cannot connect to Platform local/);
      assert.match(result.stderr, /platform\.networks\.local\.dapi_addresses/);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

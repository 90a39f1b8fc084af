/**
 * platform_identity_balance_get through the CLI in-process, on recorded vectors whose proofs the
 * real SDK verifies (test/helpers/platform-cli.ts); and the negative controls: a doctored answer
 * (a flipped signature bit or proof byte, the wrong quorum key, another request's answer) fails it
 * with BACKEND_INVALID.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cli, IDENTITY_SESSION, onFakePlatform } from '../../helpers/platform-cli.js';
import { platformSdkProblem, RECORDED, type Tamper } from '../../helpers/platform-dapi.js';

const sdkProblem = await platformSdkProblem();

describe('platform_identity_balance_get', { skip: sdkProblem ?? false }, () => {
  it("answers the identity's balance, in credits as the identity shows it and in Dash", () =>
    onFakePlatform(IDENTITY_SESSION, async (dapi, home) => {
      const identity = await cli(dapi, home, ['platform-identity-get', '--identity-id', RECORDED.identityId]);
      assert.equal(identity.code, 0, identity.stderr);
      const balance = await cli(dapi, home, ['platform-identity-balance-get', '--identity-id', RECORDED.identityId]);
      assert.equal(balance.code, 0, balance.stderr);
      assert.equal(balance.json?.['balance_credits'], identity.json?.['balance_credits']);
      assert.match(String(balance.json?.['balance_dash']), /^[0-9]+(\.[0-9]+)?$/);
      assert.deepEqual(dapi.unmatched, []);
    }));

  for (const tamper of ['flip-signature-bit', 'flip-proof-byte', 'wrong-quorum-key', 'other-response'] as Tamper[]) {
    it(`${tamper}: the tool fails with BACKEND_INVALID (exit 7), no data`, () =>
      onFakePlatform(
        IDENTITY_SESSION,
        async (dapi, home) => {
          const result = await cli(dapi, home, ['platform-identity-balance-get', '--identity-id', RECORDED.identityId]);
          assert.equal(result.code, 7, result.stderr);
          assert.equal(result.stdout, '');
          assert.match(result.stderr, /refused: the (quorum's signature|GroveDB proof) does not verify/);
        },
        tamper,
      ));
  }
});

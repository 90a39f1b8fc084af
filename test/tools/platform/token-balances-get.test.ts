/**
 * platform_token_balances_get through the CLI in-process, on recorded vectors whose proofs the
 * real SDK verifies (test/helpers/platform-cli.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cli, IDENTITY_SESSION, onFakePlatform } from '../../helpers/platform-cli.js';
import { platformSdkProblem, RECORDED } from '../../helpers/platform-dapi.js';

const sdkProblem = await platformSdkProblem();

describe('platform_token_balances_get', { skip: sdkProblem ?? false }, () => {
  it("answers an identity's balance of each token, null for a token it holds none of", () =>
    onFakePlatform(IDENTITY_SESSION, async (dapi, home) => {
      const tokens = await cli(dapi, home, [
        'platform-token-balances-get',
        '--args-json',
        JSON.stringify({ identity_id: RECORDED.identityId, token_ids: RECORDED.tokenIds }),
      ]);
      assert.equal(tokens.code, 0, tokens.stderr);
      assert.deepEqual(
        (tokens.json?.['balances'] as { token_id: string; balance: string | null }[]).map((row) => row.balance),
        ['100100', '100200', '100300', null],
      );
      assert.deepEqual(dapi.unmatched, []);
    }));
});

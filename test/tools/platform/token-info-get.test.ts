/**
 * platform_token_info_get through the CLI in-process, on recorded vectors whose proofs the real
 * SDK verifies (test/helpers/platform-cli.ts): statuses, total supply, direct-purchase prices.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cli, IDENTITY_SESSION, onFakePlatform } from '../../helpers/platform-cli.js';
import { platformSdkProblem, RECORDED } from '../../helpers/platform-dapi.js';

const sdkProblem = await platformSdkProblem();

describe('platform_token_info_get', { skip: sdkProblem ?? false }, () => {
  it("answers each token's status (paused or not) and a total supply", () =>
    onFakePlatform(IDENTITY_SESSION, async (dapi, home) => {
      const statuses = await cli(dapi, home, [
        'platform-token-info-get',
        '--args-json',
        JSON.stringify({ token_ids: RECORDED.tokenIds, include: ['status'] }),
      ]);
      assert.equal(statuses.code, 0, statuses.stderr);
      assert.deepEqual(statuses.json?.['tokens'], [
        { token_id: RECORDED.tokenIds[0], paused: null },
        { token_id: RECORDED.tokenIds[1], paused: true },
        { token_id: RECORDED.tokenIds[2], paused: null },
        { token_id: RECORDED.tokenIds[3], paused: null },
      ]);
      const supply = await cli(dapi, home, [
        'platform-token-info-get',
        '--args-json',
        JSON.stringify({ token_ids: [RECORDED.tokenIds[0]], include: ['supply'] }),
      ]);
      assert.equal(supply.code, 0, supply.stderr);
      const [row] = supply.json?.['tokens'] as { total_supply: string }[];
      assert.match(row?.total_supply ?? '', /^[1-9][0-9]*$/);
      assert.deepEqual(dapi.unmatched, []);
    }));

  it('direct-purchase prices (their own session)', () =>
    onFakePlatform(['tokenPrices'], async (dapi, home) => {
      const prices = await cli(dapi, home, [
        'platform-token-info-get',
        '--args-json',
        JSON.stringify({ token_ids: RECORDED.pricedTokenIds, include: ['price'] }),
      ]);
      assert.equal(prices.code, 0, prices.stderr);
      const rows = prices.json?.['tokens'] as { token_id: string; price: Record<string, string> | null }[];
      assert.deepEqual(
        rows.map((row) => row.token_id),
        RECORDED.pricedTokenIds,
      );
      assert.equal(rows[0]?.price, null);
      assert.deepEqual(rows[1]?.price, { base_price_credits: '25', current_price_credits: '25' });
      assert.deepEqual(dapi.unmatched, []);
    }));
});

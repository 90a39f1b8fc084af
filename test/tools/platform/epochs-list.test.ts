/**
 * platform_epochs_list through the CLI in-process, on recorded vectors whose proofs the real SDK
 * verifies (test/helpers/platform-cli.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cli, IDENTITY_SESSION, onFakePlatform } from '../../helpers/platform-cli.js';
import { platformSdkProblem } from '../../helpers/platform-dapi.js';

const sdkProblem = await platformSdkProblem();

describe('platform_epochs_list', { skip: sdkProblem ?? false }, () => {
  it('lists the first epoch, before the recording; none from an epoch not reached yet', () =>
    onFakePlatform(IDENTITY_SESSION, async (dapi, home) => {
      const epochs = await cli(dapi, home, ['platform-epochs-list', '--start-epoch', '0', '--count', '1']);
      assert.equal(epochs.code, 0, epochs.stderr);
      const [first, ...rest] = epochs.json?.['epochs'] as {
        index: number;
        first_block_time: string;
        fee_multiplier: number;
      }[];
      assert.deepEqual(rest, []);
      assert.equal(first?.index, 0);
      assert.ok(Date.parse(first?.first_block_time ?? '') <= dapi.timeMs);
      assert.equal(first?.fee_multiplier, 1);
      const none = await cli(dapi, home, ['platform-epochs-list', '--start-epoch', '193', '--count', '2']);
      assert.equal(none.code, 0, none.stderr);
      assert.deepEqual(none.json?.['epochs'], []);
      assert.deepEqual(dapi.unmatched, []);
    }));
});

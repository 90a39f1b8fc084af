/**
 * platform_contract_get through the CLI in-process, on the recorded DPNS contract whose proof the
 * real SDK verifies (test/helpers/platform-cli.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cli, DPNS_SESSION, onFakePlatform } from '../../helpers/platform-cli.js';
import { platformSdkProblem, RECORDED } from '../../helpers/platform-dapi.js';

const sdkProblem = await platformSdkProblem();

describe('platform_contract_get', { skip: sdkProblem ?? false }, () => {
  it("reads DPNS's contract: its document types", () =>
    onFakePlatform(DPNS_SESSION, async (dapi, home) => {
      const contract = await cli(dapi, home, ['platform-contract-get', '--contract-id', RECORDED.dpnsContractId]);
      assert.equal(contract.code, 0, contract.stderr);
      assert.deepEqual(contract.json?.['document_types'], ['domain', 'preorder']);
      assert.deepEqual(dapi.unmatched, []);
    }));
});

/**
 * platform_documents_list through the CLI in-process, on recorded DPNS documents whose proofs the
 * real SDK verifies (test/helpers/platform-cli.ts): a list, and one document by a where clause.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cli, DPNS_SESSION, onFakePlatform } from '../../helpers/platform-cli.js';
import { platformSdkProblem, RECORDED } from '../../helpers/platform-dapi.js';

const sdkProblem = await platformSdkProblem();

describe('platform_documents_list', { skip: sdkProblem ?? false }, () => {
  it("lists DPNS's domains, and one by its id with a where clause", () =>
    onFakePlatform(DPNS_SESSION, async (dapi, home) => {
      const list = await cli(dapi, home, [
        'platform-documents-list',
        '--contract-id',
        RECORDED.dpnsContractId,
        '--document-type',
        'domain',
      ]);
      assert.equal(list.code, 0, list.stderr);
      const documents = list.json?.['documents'] as { id: string; data: Record<string, unknown> }[];
      assert.ok(documents.some((document) => document.data['label'] === 'dash'));
      const one = await cli(dapi, home, [
        'platform-documents-list',
        '--contract-id',
        RECORDED.dpnsContractId,
        '--document-type',
        'domain',
        '--args-json',
        JSON.stringify({ where: [['$id', '==', RECORDED.domainDocumentId]] }),
      ]);
      assert.equal(one.code, 0, one.stderr);
      assert.deepEqual(
        (one.json?.['documents'] as { id: string }[]).map((document) => document.id),
        [RECORDED.domainDocumentId],
      );
      assert.deepEqual(dapi.unmatched, []);
    }));
});

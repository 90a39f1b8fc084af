// The Platform domain against recorded vectors replayed by the fake DAPI of
// test/helpers/platform-dapi.ts, with the SDK's proof verification on, and the four negative
// controls: a flipped signature bit, a flipped proof byte, the wrong quorum key and another
// request's answer must each be refused as BACKEND_INVALID, never shown.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fetchContract, listDocuments } from '../../src/domain/platform/documents.js';
import { fetchIdentity, fetchIdentityBalance } from '../../src/domain/platform/identities.js';
import { platformNetwork, resolvePlatformNetworks, type PlatformNetwork } from '../../src/domain/platform/network.js';
import { platformSdkProblem, RECORDED, startFakeDapi, type FakeDapi, type Tamper } from '../helpers/platform-dapi.js';
import { withClockAt } from '../helpers/shifted-clock.js';

const sdkProblem = await platformSdkProblem();

/** The fake DAPI as config.json names a network of one's own. */
const local = (dapi: FakeDapi): PlatformNetwork =>
  platformNetwork(
    resolvePlatformNetworks({
      platform: { default_network: 'local', networks: { local: { dapi_addresses: [dapi.url], quorum_url: dapi.url } } },
    }),
    undefined,
  );

describe('Platform reads replayed from recorded vectors, proofs verified', { skip: sdkProblem ?? false }, () => {
  it('an identity by id, and its balance', async () => {
    const dapi = await startFakeDapi(['identity', 'identityBalance']);
    try {
      const identity = await withClockAt(dapi.timeMs, () => fetchIdentity(local(dapi), RECORDED.identityId));
      assert.equal(identity.id, RECORDED.identityId);
      assert.ok(identity.publicKeys.length > 0);
      assert.equal(identity.publicKeys[0]?.purpose, 'AUTHENTICATION');
      const balance = await withClockAt(dapi.timeMs, () => fetchIdentityBalance(local(dapi), RECORDED.identityId));
      assert.equal(typeof balance, 'bigint');
      assert.deepEqual(dapi.unmatched, []);
      assert.equal(dapi.answered.length, 2);
    } finally {
      await dapi.close();
    }
  });

  it('the DPNS contract, its domain documents, and one by $id', async () => {
    const dapi = await startFakeDapi(['contract', 'documentsList', 'documentById']);
    try {
      const network = local(dapi);
      const contract = await withClockAt(dapi.timeMs, () => fetchContract(network, RECORDED.dpnsContractId));
      assert.equal(contract.id, RECORDED.dpnsContractId);
      assert.deepEqual(Object.keys(contract.documentSchemas).sort(), ['domain', 'preorder']);
      const query = {
        contractId: RECORDED.dpnsContractId,
        documentType: 'domain',
        where: [] as [string, string, unknown][],
        orderBy: [] as [string, 'asc' | 'desc'][],
        limit: 0,
        startAfter: undefined,
      };
      const all = await withClockAt(dapi.timeMs, () => listDocuments(network, query));
      assert.ok(all.some((document) => document.data['label'] === 'dash'));
      const one = await withClockAt(dapi.timeMs, () =>
        listDocuments(network, { ...query, where: [['$id', '==', RECORDED.domainDocumentId]] }),
      );
      assert.deepEqual(
        one.map((document) => document.id),
        [RECORDED.domainDocumentId],
      );
      assert.deepEqual(dapi.unmatched, []);
    } finally {
      await dapi.close();
    }
  });

  it('an unrecorded request is not answered, and says so', async () => {
    const dapi = await startFakeDapi(['identity']);
    try {
      const other = '11111111111111111111111111111112';
      await assert.rejects(
        withClockAt(dapi.timeMs, () => fetchIdentity(local(dapi), other)),
        (error: { code?: string }) => error.code !== undefined,
      );
      assert.equal(dapi.unmatched.length, 1);
    } finally {
      await dapi.close();
    }
  });

  for (const [tamper, check] of [
    ['flip-signature-bit', /signature does not verify/],
    ['flip-proof-byte', /GroveDB proof does not verify/],
    ['wrong-quorum-key', /signature does not verify/],
    ['other-response', /GroveDB proof does not verify/],
  ] as [Tamper, RegExp][]) {
    it(`${tamper}: refused as BACKEND_INVALID naming the check`, async () => {
      const dapi = await startFakeDapi(['identity', 'identityBalance'], tamper);
      try {
        await assert.rejects(
          withClockAt(dapi.timeMs, () => fetchIdentity(local(dapi), RECORDED.identityId)),
          (error: { code?: string; message?: string }) => {
            assert.equal(error.code, 'BACKEND_INVALID');
            assert.match(error.message ?? '', check);
            return true;
          },
        );
        assert.deepEqual(dapi.unmatched, []);
      } finally {
        await dapi.close();
      }
    });
  }

  it('the clock left as it is: the recorded answer is refused as stale', async () => {
    const dapi = await startFakeDapi(['identityBalance']);
    try {
      await assert.rejects(fetchIdentityBalance(local(dapi), RECORDED.identityId), (error: { code?: string }) => {
        assert.equal(error.code, 'BACKEND_INVALID');
        return true;
      });
    } finally {
      await dapi.close();
    }
  });
});

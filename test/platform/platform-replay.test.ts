// The Platform domain against recorded vectors replayed by the fake DAPI of
// test/helpers/platform-dapi.ts, with the SDK's proof verification on, and the four negative
// controls: a flipped signature bit, a flipped proof byte, the wrong quorum key and another
// request's answer must each be refused as BACKEND_INVALID, never shown.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fetchContract, listDocuments } from '../../src/domain/platform/documents.js';
import { hash160 } from '../../src/domain/dash/address.js';
import { fetchEpochs } from '../../src/domain/platform/epochs.js';
import {
  fetchIdentitiesByKeyHashes,
  fetchIdentity,
  fetchIdentityBalance,
} from '../../src/domain/platform/identities.js';
import { platformNetwork, resolvePlatformNetworks, type PlatformNetwork } from '../../src/domain/platform/network.js';
import { platformRead } from '../../src/domain/platform/sdk.js';
import { fetchTokenInfos } from '../../src/domain/platform/tokens.js';
import { platformSdkProblem, RECORDED, startFakeDapi, type FakeDapi, type Tamper } from '../helpers/platform-dapi.js';
import { withClockAt } from '../helpers/shifted-clock.js';

const sdkProblem = await platformSdkProblem();

/** What a Rust panic in the SDK's wasm throws (Node has it; this project's TypeScript libs do not declare it). */
const WasmRuntimeError = (globalThis as unknown as { WebAssembly: { RuntimeError: new (message: string) => Error } })
  .WebAssembly.RuntimeError;

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

  it('an identity by the HASH160 of one of its keys: the key it holds hashes to the one asked', async () => {
    const dapi = await startFakeDapi(['identityByKeyHash']);
    try {
      const [identity] = await withClockAt(dapi.timeMs, () =>
        fetchIdentitiesByKeyHashes(local(dapi), [RECORDED.identityKeyHash]),
      );
      assert.equal(identity?.id, RECORDED.identityId);
      const hashes = identity?.publicKeys.map((key) =>
        Buffer.from(hash160(Buffer.from(key.data, 'hex'))).toString('hex'),
      );
      assert.ok(hashes?.includes(RECORDED.identityKeyHash), `no key of ${RECORDED.identityId} hashes to the one asked`);
      assert.deepEqual(dapi.unmatched, []);
    } finally {
      await dapi.close();
    }
  });

  it("tokens' paused status and total supply, one session; prices, another", async () => {
    const dapi = await startFakeDapi(['tokenStatuses', 'tokenTotalSupply']);
    try {
      const statuses = await withClockAt(dapi.timeMs, () =>
        fetchTokenInfos(local(dapi), RECORDED.tokenIds, new Set(['status'])),
      );
      // rs-drive-abci's create_sdk_test_data pauses one token and sets no status on the others.
      assert.deepEqual(
        statuses.map((row) => [row.tokenId, row.paused, row.totalSupply]),
        RECORDED.tokenIds.map((id, index) => [id, index === 1 ? true : null, undefined]),
      );
      const [supply] = await withClockAt(dapi.timeMs, () =>
        fetchTokenInfos(local(dapi), [RECORDED.tokenIds[0]], new Set(['supply'])),
      );
      assert.equal(typeof supply?.totalSupply, 'bigint');
      assert.ok((supply?.totalSupply ?? 0n) > 0n);
      assert.deepEqual(dapi.unmatched, []);
    } finally {
      await dapi.close();
    }
    const priced = await startFakeDapi(['tokenPrices']);
    try {
      const prices = await withClockAt(priced.timeMs, () =>
        fetchTokenInfos(local(priced), RECORDED.pricedTokenIds, new Set(['price'])),
      );
      // One token without a price (proved), one at a single price, one on a schedule.
      assert.equal(prices[0]?.price, null);
      assert.deepEqual(prices[1]?.price, { basePriceCredits: '25', currentPriceCredits: '25' });
      assert.ok(prices[2]?.price && prices[2].price.basePriceCredits !== prices[2].price.currentPriceCredits);
      assert.deepEqual(priced.unmatched, []);
    } finally {
      await priced.close();
    }
  });

  it('epochs: the first one, and none past the last (proved)', async () => {
    const dapi = await startFakeDapi(['epochFirst', 'epochsFrom193']);
    try {
      const [first, ...more] = await withClockAt(dapi.timeMs, () =>
        fetchEpochs(local(dapi), { startEpoch: 0, count: 1, ascending: true }),
      );
      assert.deepEqual(more, []);
      assert.equal(first?.index, 0);
      assert.ok((first?.firstBlockTimeMs ?? 0n) <= BigInt(dapi.timeMs));
      assert.ok((first?.protocolVersion ?? 0) > 0);
      const none = await withClockAt(dapi.timeMs, () =>
        fetchEpochs(local(dapi), { startEpoch: 193, count: 2, ascending: true }),
      );
      assert.deepEqual(none, []);
      assert.deepEqual(dapi.unmatched, []);
      assert.equal(dapi.answered.length, 2);
    } finally {
      await dapi.close();
    }
  });

  it('a panic of the SDK is an error code, and the next call starts afresh', async () => {
    const dapi = await startFakeDapi(['identityBalance']);
    try {
      const network = local(dapi);
      await assert.rejects(
        withClockAt(dapi.timeMs, () =>
          platformRead(network, 'a read that panics', () => {
            throw new WasmRuntimeError('unreachable executed');
          }),
        ),
        (error: { code?: string; message?: string }) => {
          assert.equal(error.code, 'BACKEND_INVALID');
          assert.match(error.message ?? '', /a panic in its WebAssembly/);
          return true;
        },
      );
      const balance = await withClockAt(dapi.timeMs, () => fetchIdentityBalance(network, RECORDED.identityId));
      assert.equal(typeof balance, 'bigint');
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

  it('after a refused answer the only node is set aside: the next call says to wait, not that it is down', async () => {
    const dapi = await startFakeDapi(['identity', 'identityBalance'], 'flip-proof-byte');
    try {
      const network = local(dapi);
      await assert.rejects(
        withClockAt(dapi.timeMs, () => fetchIdentity(network, RECORDED.identityId)),
        {
          code: 'BACKEND_INVALID',
        },
      );
      await assert.rejects(
        withClockAt(dapi.timeMs, () => fetchIdentityBalance(network, RECORDED.identityId)),
        (error: { code?: string; hint?: string }) => {
          assert.equal(error.code, 'BACKEND_UNAVAILABLE');
          assert.match(error.hint ?? '', /sets a node aside for a minute; none is left\. Try again in a minute/);
          return true;
        },
      );
    } finally {
      await dapi.close();
    }
  });

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

describe('Platform endpoints in config.json', () => {
  const network = (name: string, quorumUrl: string, dapi = 'https://dapi.example:443') =>
    platformNetwork(
      resolvePlatformNetworks({
        platform: { networks: { [name]: { dapi_addresses: [dapi], quorum_url: quorumUrl } } },
      }),
      name,
    );
  const configError = (key: string) => (error: { code?: string; message?: string; hint?: string }) => {
    assert.equal(error.code, 'INVALID_PARAM');
    assert.ok(error.message?.includes(key), error.message);
    assert.ok(error.hint?.includes(key), error.hint);
    return true;
  };

  it('a plain-http quorum service for mainnet or testnet is a config error naming the key', () => {
    for (const name of ['mainnet', 'testnet']) {
      assert.throws(() => network(name, 'http://quorums.example'), configError(`platform.networks.${name}.quorum_url`));
      assert.throws(
        () => network(name, 'https://quorums.example', 'http://dapi.example:1443'),
        configError(`platform.networks.${name}.dapi_addresses`),
      );
    }
  });

  it("a quorum service of a network of one's own: https, or http on loopback only", () => {
    assert.throws(() => network('local', 'http://192.168.1.5:2444'), configError('platform.networks.local.quorum_url'));
    for (const url of [
      'https://quorums.example',
      'http://127.0.0.1:2444',
      'http://localhost:2444',
      'http://[::1]:2444',
    ]) {
      assert.equal(network('local', url, 'http://192.168.1.5:1443').quorumUrl, url);
    }
  });
});

// The Platform tools end to end on recorded vectors, proofs verified by the real SDK: through the
// CLI in-process (its clock shifted to the recording's for the call) and through `wallet serve`
// spawned with a real MCP client (its process clock shifted by test/fixtures/shifted-clock.mjs),
// one fake DAPI per recording session. Negative controls: a flipped signature bit, a flipped
// proof byte, the wrong quorum key and another request's answer each fail the tool with
// BACKEND_INVALID (exit 7), and an unreachable DAPI with BACKEND_UNAVAILABLE.
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ERROR_META_KEY } from '../../src/shared/protocol-meta.js';
import { hash160 } from '../../src/domain/dash/address.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { ROOT, WALLET_BIN } from '../helpers/paths.js';
import {
  platformSdkProblem,
  RECORDED,
  startFakeDapi,
  type FakeDapi,
  type Tamper,
  type VectorName,
} from '../helpers/platform-dapi.js';
import { freePort } from '../helpers/ports.js';
import { withClockAt } from '../helpers/shifted-clock.js';

const sdkProblem = await platformSdkProblem();

const SHIFTED_CLOCK = join(ROOT, 'test', 'fixtures', 'shifted-clock.mjs');
const IDENTITY_SESSION: VectorName[] = [
  'identity',
  'identityBalance',
  'tokenBalances',
  'identityByKeyHash',
  'tokenStatuses',
  'tokenTotalSupply',
  'epochFirst',
  'epochsFrom193',
];
const DPNS_SESSION: VectorName[] = ['contract', 'documentsList', 'documentById'];

/** A data directory whose config.json names the fake DAPI as Platform network `local`, the default. */
function homeFor(url: string): string {
  const home = tempHome();
  const config = {
    platform: { default_network: 'local', networks: { local: { dapi_addresses: [url], quorum_url: url } } },
  };
  writeFileSync(join(home, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  return home;
}

async function cli(dapi: FakeDapi, home: string, argv: string[]) {
  const result = await withClockAt(dapi.timeMs, () => wallet([...argv, '--json'], { home }));
  return { ...result, json: result.code === 0 ? (JSON.parse(result.stdout) as Record<string, unknown>) : undefined };
}

describe('Platform tools through the CLI, in-process', { skip: sdkProblem ?? false }, () => {
  it('platform-identity-get and platform-identity-balance-get answer from proved vectors', async () => {
    const dapi = await startFakeDapi(IDENTITY_SESSION);
    const home = homeFor(dapi.url);
    try {
      const identity = await cli(dapi, home, ['platform-identity-get', '--identity-id', RECORDED.identityId]);
      assert.equal(identity.code, 0, identity.stderr);
      assert.equal(identity.json?.['identity_id'], RECORDED.identityId);
      assert.equal(identity.json?.['network'], 'local');
      const keys = identity.json?.['public_keys'] as { purpose: string; data: string }[];
      assert.ok(keys.length > 0 && keys.every((key) => /^[0-9a-f]+$/.test(key.data)));
      const balance = await cli(dapi, home, ['platform-identity-balance-get', '--identity-id', RECORDED.identityId]);
      assert.equal(balance.code, 0, balance.stderr);
      assert.equal(balance.json?.['balance_credits'], identity.json?.['balance_credits']);
      assert.match(String(balance.json?.['balance_dash']), /^[0-9]+(\.[0-9]+)?$/);
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
    } finally {
      await dapi.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('platform-identity-get by public key hash, platform-token-info-get and platform-epochs-list', async () => {
    const dapi = await startFakeDapi(IDENTITY_SESSION);
    const home = homeFor(dapi.url);
    try {
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
    } finally {
      await dapi.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('platform-token-info-get: direct-purchase prices (their own session)', async () => {
    const dapi = await startFakeDapi(['tokenPrices']);
    const home = homeFor(dapi.url);
    try {
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
    } finally {
      await dapi.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("platform-identities-list asks for exactly the wallet's DIP-13 key hash, as the SDK derives it", async () => {
    // No recorded identity belongs to a known seed (the vectors' identities have keys from a seeded
    // RNG), so no lookup of a wallet's key can be answered: the fake DAPI lists the request it
    // got, which must carry the HASH160 of m/9'/1'/5'/0'/0'/0'/0' as the SDK's own derivation
    // gives it; and the tool must fail with a code, showing nothing.
    const mnemonic = 'legal winner thank year wave sausage worth useful legal winner thank yellow';
    const dapi = await startFakeDapi(IDENTITY_SESSION);
    const home = homeFor(dapi.url);
    const pass = ['--passphrase-file', passphraseFileIn(home, 'right passphrase')];
    try {
      const imported = await wallet(
        ['core-wallet-import', '--alias', 'main', '--network', 'testnet', '--mnemonic-stdin', '--no-discover', ...pass],
        { home, stdin: mnemonic },
      );
      assert.equal(imported.code, 0, imported.stderr);
      const listed = await cli(dapi, home, ['platform-identities-list', '--gap-limit', '1', ...pass]);
      assert.notEqual(listed.code, 0);
      assert.equal(listed.stdout, '');
      assert.match(listed.stderr, /error: BACKEND_UNAVAILABLE: /);
      assert.ok(!listed.stderr.includes('legal winner'));
      const { wallet: sdkWallet } = await import('@dashevo/evo-sdk');
      const oracle = await sdkWallet.deriveKeyFromSeedWithPath({
        mnemonic,
        path: "m/9'/1'/5'/0'/0'/0'/0'",
        network: 'testnet',
      });
      const hash = Buffer.from(hash160(Buffer.from(oracle.publicKey, 'hex'))).toString('hex');
      // GetIdentityByPublicKeyHashRequest { v0: { public_key_hash, prove: true } } on the wire.
      assert.deepEqual(dapi.unmatched, [`getIdentityByPublicKeyHash 0a180a14${hash}1001`]);
    } finally {
      await dapi.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("platform-identities-list refuses a mainnet wallet's keys on another Platform network, asking nothing", async () => {
    const dapi = await startFakeDapi(IDENTITY_SESSION);
    const home = homeFor(dapi.url);
    const pass = ['--passphrase-file', passphraseFileIn(home, 'right passphrase')];
    try {
      const imported = await wallet(
        ['core-wallet-import', '--alias', 'main', '--network', 'mainnet', '--mnemonic-stdin', '--no-discover', ...pass],
        { home, stdin: 'legal winner thank year wave sausage worth useful legal winner thank yellow' },
      );
      assert.equal(imported.code, 0, imported.stderr);
      const listed = await cli(dapi, home, ['platform-identities-list', ...pass]);
      assert.notEqual(listed.code, 0);
      assert.match(
        listed.stderr,
        /error: NETWORK_MISMATCH: Wallet 'main' is a mainnet wallet; Platform local is not mainnet/,
      );
      assert.deepEqual([dapi.answered, dapi.unmatched], [[], []]);
    } finally {
      await dapi.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('platform-contract-get and platform-documents-list read DPNS', async () => {
    const dapi = await startFakeDapi(DPNS_SESSION);
    const home = homeFor(dapi.url);
    try {
      const contract = await cli(dapi, home, ['platform-contract-get', '--contract-id', RECORDED.dpnsContractId]);
      assert.equal(contract.code, 0, contract.stderr);
      assert.deepEqual(contract.json?.['document_types'], ['domain', 'preorder']);
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
    } finally {
      await dapi.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  for (const tamper of ['flip-signature-bit', 'flip-proof-byte', 'wrong-quorum-key', 'other-response'] as Tamper[]) {
    it(`${tamper}: the tool fails with BACKEND_INVALID (exit 7), no data`, async () => {
      const dapi = await startFakeDapi(IDENTITY_SESSION, tamper);
      const home = homeFor(dapi.url);
      try {
        const result = await cli(dapi, home, ['platform-identity-balance-get', '--identity-id', RECORDED.identityId]);
        assert.equal(result.code, 7, result.stderr);
        assert.equal(result.stdout, '');
        assert.match(result.stderr, /refused: the (quorum's signature|GroveDB proof) does not verify/);
      } finally {
        await dapi.close();
        rmSync(home, { recursive: true, force: true });
      }
    });
  }

  it("an identifier that is no 32-byte one is the caller's mistake: INVALID_PARAM (exit 2), not a refused answer", async () => {
    const dapi = await startFakeDapi(IDENTITY_SESSION);
    const home = homeFor(dapi.url);
    try {
      const result = await cli(dapi, home, ['platform-identity-get', '--identity-id', 'z'.repeat(44)]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /error: INVALID_PARAM: Platform refused the request for /);
    } finally {
      await dapi.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

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

  it('network-info shows the Platform networks and where they come from', async () => {
    const home = homeFor('http://127.0.0.1:1');
    try {
      const result = await wallet(['network-info', '--chain', 'platform', '--json'], { home });
      assert.equal(result.code, 0, result.stderr);
      const info = JSON.parse(result.stdout) as {
        default_platform_network: string;
        networks: { network: string; endpoint: string | null; quorum_url: string | null; endpoint_source: string }[];
      };
      assert.equal(info.default_platform_network, 'local');
      assert.deepEqual(
        info.networks.map((row) => [row.network, row.endpoint_source]),
        [
          ['mainnet', 'public'],
          ['testnet', 'public'],
          ['local', 'config'],
        ],
      );
      assert.equal(info.networks[2]?.quorum_url, 'http://127.0.0.1:1');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

type CallResult = Awaited<ReturnType<Client['callTool']>>;

/** `wallet serve` spawned with its clock at the recording's time, and a real MCP client on it. */
async function serveAt(dapi: FakeDapi, home: string, flags: string[] = []): Promise<Client> {
  const client = new Client({ name: 'platform-test', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', SHIFTED_CLOCK, WALLET_BIN, 'serve', ...flags],
      env: { PATH: process.env['PATH'] ?? '', WALLET_HOME: home, SHIFTED_CLOCK_MS: String(dapi.timeMs) },
      stderr: 'ignore',
    }),
  );
  return client;
}

const errorCode = (result: CallResult): string | undefined =>
  result.isError ? (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code : undefined;

describe('Platform tools over wallet serve, a real SDK client', { skip: sdkProblem ?? false }, () => {
  let dapi: FakeDapi;
  let home: string;
  let client: Client;
  before(async () => {
    dapi = await startFakeDapi(DPNS_SESSION);
    home = homeFor(dapi.url);
    client = await serveAt(dapi, home);
  });
  after(async () => {
    await client.close();
    await dapi.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('lists the Platform tools as read-only and open-world', async () => {
    const { tools } = await client.listTools();
    const platform = tools.filter((tool) => tool.name.startsWith('platform_'));
    assert.deepEqual(platform.map((tool) => tool.name).sort(), [
      'platform_contract_get',
      'platform_documents_list',
      'platform_epochs_list',
      'platform_identities_list',
      'platform_identity_balance_get',
      'platform_identity_get',
      'platform_token_balances_get',
      'platform_token_info_get',
    ]);
    for (const tool of platform) {
      assert.equal(tool.annotations?.readOnlyHint, true, tool.name);
      assert.equal(tool.annotations?.openWorldHint, true, tool.name);
    }
  });

  it('platform_contract_get then platform_documents_list with a where clause, proved', async () => {
    const contract = await client.callTool({
      name: 'platform_contract_get',
      arguments: { contract_id: RECORDED.dpnsContractId },
    });
    assert.equal(errorCode(contract), undefined, JSON.stringify(contract.content));
    assert.equal((contract.structuredContent as { owner_id: string }).owner_id, '11111111111111111111111111111111');
    const one = await client.callTool({
      name: 'platform_documents_list',
      arguments: {
        contract_id: RECORDED.dpnsContractId,
        document_type: 'domain',
        where: [['$id', '==', RECORDED.domainDocumentId]],
      },
    });
    assert.equal(errorCode(one), undefined, JSON.stringify(one.content));
    const documents = (one.structuredContent as { documents: { id: string; data: { label: string } }[] }).documents;
    assert.deepEqual(
      documents.map((document) => [document.id, document.data.label]),
      [[RECORDED.domainDocumentId, 'dash']],
    );
    assert.deepEqual(dapi.unmatched, []);
  });

  it('a request nobody recorded fails with a code, and the fake DAPI says which', async () => {
    const result = await client.callTool({
      name: 'platform_contract_get',
      arguments: { contract_id: '11111111111111111111111111111112' },
    });
    assert.ok(errorCode(result) !== undefined);
    assert.equal(dapi.unmatched.length, 1);
    dapi.unmatched.length = 0;
  });
});

describe('Platform identity-session tools over wallet serve, a real SDK client', { skip: sdkProblem ?? false }, () => {
  const mnemonic = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
  let dapi: FakeDapi;
  let home: string;
  let client: Client;
  before(async () => {
    dapi = await startFakeDapi(IDENTITY_SESSION);
    home = homeFor(dapi.url);
    const passphraseFile = passphraseFileIn(home, 'right passphrase');
    const imported = await wallet(
      [
        'core-wallet-import',
        '--alias',
        'main',
        '--network',
        'testnet',
        '--mnemonic-stdin',
        '--no-discover',
        '--passphrase-file',
        passphraseFile,
      ],
      { home, stdin: mnemonic },
    );
    assert.equal(imported.code, 0, imported.stderr);
    client = await serveAt(dapi, home, ['--passphrase-file', passphraseFile]);
  });
  after(async () => {
    await client.close();
    await dapi.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('platform_identity_get by key hash, platform_token_info_get, platform_epochs_list', async () => {
    const byKey = await client.callTool({
      name: 'platform_identity_get',
      arguments: { public_key_hash: RECORDED.identityKeyHash },
    });
    assert.equal(errorCode(byKey), undefined, JSON.stringify(byKey.content));
    assert.equal((byKey.structuredContent as { identity_id: string }).identity_id, RECORDED.identityId);
    const statuses = await client.callTool({
      name: 'platform_token_info_get',
      arguments: { token_ids: RECORDED.tokenIds, include: ['status'] },
    });
    assert.equal(errorCode(statuses), undefined, JSON.stringify(statuses.content));
    const tokens = (statuses.structuredContent as { tokens: { paused: boolean | null }[] }).tokens;
    assert.deepEqual(
      tokens.map((token) => token.paused),
      [null, true, null, null],
    );
    const epochs = await client.callTool({ name: 'platform_epochs_list', arguments: { count: 1 } });
    assert.equal(errorCode(epochs), undefined, JSON.stringify(epochs.content));
    assert.deepEqual(
      (epochs.structuredContent as { epochs: { index: number }[] }).epochs.map((epoch) => epoch.index),
      [0],
    );
    assert.deepEqual(dapi.unmatched, []);
  });

  it("platform_identities_list sends the wallet's DIP-13 key hash, and fails with a code when unanswered", async () => {
    const result = await client.callTool({ name: 'platform_identities_list', arguments: { gap_limit: 1 } });
    assert.equal(errorCode(result), 'BACKEND_UNAVAILABLE');
    assert.equal(result.structuredContent, undefined);
    const { wallet: sdkWallet } = await import('@dashevo/evo-sdk');
    const oracle = await sdkWallet.deriveKeyFromSeedWithPath({
      mnemonic,
      path: "m/9'/1'/5'/0'/0'/0'/0'",
      network: 'testnet',
    });
    const hash = Buffer.from(hash160(Buffer.from(oracle.publicKey, 'hex'))).toString('hex');
    assert.deepEqual(dapi.unmatched, [`getIdentityByPublicKeyHash 0a180a14${hash}1001`]);
    dapi.unmatched.length = 0;
  });
});

describe('Platform negative control over wallet serve', { skip: sdkProblem ?? false }, () => {
  it('a flipped proof byte: BACKEND_INVALID, no structured result', async () => {
    const dapi = await startFakeDapi(IDENTITY_SESSION, 'flip-proof-byte');
    const home = homeFor(dapi.url);
    const client = await serveAt(dapi, home);
    try {
      const result = await client.callTool({
        name: 'platform_identity_get',
        arguments: { identity_id: RECORDED.identityId },
      });
      assert.equal(errorCode(result), 'BACKEND_INVALID');
      assert.equal(result.structuredContent, undefined);
    } finally {
      await client.close();
      await dapi.close();
      rmSync(home, { recursive: true, force: true });
    }
  });
});

// The Platform tools end to end on recorded vectors, proofs verified by the real SDK, through
// `wallet serve` spawned with a real MCP client (its process clock shifted by
// test/fixtures/shifted-clock.mjs), one fake DAPI per recording session; a flipped proof byte
// fails a call with BACKEND_INVALID. Each tool's own tests, through the CLI in-process, are in
// test/tools/platform/<file>.test.ts.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { ERROR_META_KEY } from '../../src/shared/protocol-meta.js';
import { hash160 } from '../../src/domain/dash/address.js';
import { passphraseFileIn, wallet } from '../helpers/io.js';
import { ROOT, WALLET_BIN } from '../helpers/paths.js';
import { DPNS_SESSION, homeFor, IDENTITY_SESSION } from '../helpers/platform-cli.js';
import { platformSdkProblem, RECORDED, startFakeDapi, type FakeDapi } from '../helpers/platform-dapi.js';
import { importArgs } from '../helpers/core-argv.js';

const sdkProblem = await platformSdkProblem();

const SHIFTED_CLOCK = join(ROOT, 'test', 'fixtures', 'shifted-clock.mjs');

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
    const imported = await wallet(importArgs(['--no-discover', '--passphrase-file', passphraseFile]), {
      home,
      stdin: mnemonic,
    });
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

/**
 * The Dash tools as an agent sees them: a real MCP client (the SDK's) talking to `wallet serve`
 * spawned as a process. Secrets stay out: the local-only tools are not served, no result carries
 * a mnemonic, signing works only when serve was started with --passphrase-file.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { isSecretSchema, schemaProperties, type JsonSchema } from '../../src/shared/json-schema.js';
import { ERROR_META_KEY } from '../../src/shared/protocol-meta.js';
import { passphraseFileIn, tempHome } from '../helpers/io.js';
import { approveAsOwner } from '../helpers/approvals.js';
import { WALLET_BIN } from '../helpers/paths.js';

type CallResult = Awaited<ReturnType<Client['callTool']>>;

async function serve(home: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'core-test', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [WALLET_BIN, 'serve', ...args],
      env: { PATH: process.env['PATH'] ?? '', WALLET_HOME: home },
      stderr: 'ignore',
    }),
  );
  return client;
}

const errorCode = (result: CallResult): string | undefined =>
  result.isError ? (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code : undefined;

describe('core tools over wallet serve', () => {
  let home: string;
  let unlocked: Client;
  let locked: Client;

  before(async () => {
    home = tempHome();
    const passphraseFile = passphraseFileIn(home, 'agent passphrase');
    unlocked = await serve(home, ['--passphrase-file', passphraseFile]);
    locked = await serve(home, []);
  });
  after(async () => {
    await unlocked.close();
    await locked.close();
    rmSync(home, { recursive: true, force: true });
  });

  it('lists no local-only tool and no secret argument', async () => {
    const { tools } = await unlocked.listTools();
    const names = tools.map((tool) => tool.name);
    assert.ok(names.includes('core_wallet_create') && names.includes('core_funds_send'));
    assert.ok(!names.includes('core_wallet_import') && !names.includes('core_wallet_export'));
    for (const tool of tools) {
      for (const [property, schema] of schemaProperties(tool.inputSchema as JsonSchema)) {
        assert.equal(isSecretSchema(schema), false, `${tool.name}.${property} is a secret`);
      }
    }
    const exported = await unlocked
      .callTool({ name: 'core_wallet_export', arguments: { wallet_id: 'x' } })
      .catch((error: unknown) => error);
    assert.match(String(exported), /Unknown tool/);
  });

  it('creates a wallet without ever returning its mnemonic, and signs with the served passphrase', async () => {
    const created = await unlocked.callTool({
      name: 'core_wallet_create',
      arguments: { alias: 'agent', network: 'testnet', words: 24 },
    });
    assert.notEqual(created.isError, true);
    const structured = created.structuredContent as { wallet_id: string; backup: string };
    assert.match(structured.wallet_id, /^[0-9a-f]{8}$/);
    assert.match(structured.backup, /core-wallet-export/);
    // The mnemonic is in the keystore only, encrypted: no 24 BIP39-looking words anywhere in the result.
    const wire = JSON.stringify(created);
    assert.doesNotMatch(wire, /\b([a-z]{3,8} ){11,}[a-z]{3,8}\b/);
    const file = readFileSync(join(home, 'keystore', `${structured.wallet_id}-testnet.json`), 'utf8');
    assert.doesNotMatch(file, /\b([a-z]{3,8} ){11,}[a-z]{3,8}\b/);

    const address = (await unlocked.callTool({ name: 'core_address_create', arguments: { wallet_id: 'agent' } }))
      .structuredContent as { address: string; index: number; path: string };
    assert.equal(address.index, 0);
    assert.equal(address.path, "m/44'/1'/0'/0/0");
    const sign = () =>
      unlocked.callTool({
        name: 'core_message_sign',
        arguments: { wallet_id: 'agent', address: address.address, message: 'from an agent' },
      });
    // A signature speaks for the owner: the owner approves it first, then the same call signs.
    await approveAsOwner(home, await sign());
    const signed = await sign();
    const { signature } = signed.structuredContent as { signature: string };
    const verified = await locked.callTool({
      name: 'core_message_verify',
      arguments: { address: address.address, message: 'from an agent', signature },
    });
    assert.deepEqual(verified.structuredContent, { valid: true });
  });

  it('a locked server refuses to sign with WALLET_LOCKED and a hint', async () => {
    const address = (await locked.callTool({ name: 'core_addresses_list', arguments: { wallet_id: 'agent' } }))
      .structuredContent as { addresses: Array<{ address: string }> };
    const sign = () =>
      locked.callTool({
        name: 'core_message_sign',
        arguments: { wallet_id: 'agent', address: address.addresses[0]?.address, message: 'x' },
      });
    await approveAsOwner(home, await sign());
    const result = await sign();
    assert.equal(errorCode(result), 'WALLET_LOCKED');
    // Over MCP the hint names the setting, not a shell flag: the CLI alone prints --passphrase-file.
    assert.match(JSON.stringify(result._meta), /`passphrase_file`/);
    assert.doesNotMatch(JSON.stringify(result._meta), /--[a-z]/);
    assert.equal(
      errorCode(await locked.callTool({ name: 'core_wallet_create', arguments: { alias: 'other' } })),
      'WALLET_LOCKED',
    );
  });

  it('spending tools need an explicit network (NETWORK_REQUIRED) that matches the wallet', async () => {
    const payment = { address: 'yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt', amount_duffs: '100000' };
    assert.equal(
      errorCode(await unlocked.callTool({ name: 'core_funds_send', arguments: { wallet_id: 'agent', ...payment } })),
      'NETWORK_REQUIRED',
    );
    assert.equal(
      errorCode(
        await unlocked.callTool({ name: 'core_tx_create', arguments: { wallet_id: 'agent', outputs: [payment] } }),
      ),
      'NETWORK_REQUIRED',
    );
    assert.equal(
      errorCode(
        await unlocked.callTool({
          name: 'core_wallet_delete',
          arguments: { wallet_id: 'agent', confirm_fingerprint: '00000000' },
        }),
      ),
      'NETWORK_REQUIRED',
    );
    assert.equal(
      errorCode(
        await unlocked.callTool({
          name: 'core_funds_send',
          arguments: { wallet_id: 'agent', network: 'mainnet', ...payment },
        }),
      ),
      'NETWORK_MISMATCH',
    );
    assert.equal(
      errorCode(
        await unlocked.callTool({
          name: 'core_tx_create',
          arguments: { wallet_id: 'agent', network: 'testnet', outputs: [{ ...payment, amount_duffs: '1.5' }] },
        }),
      ),
      'INVALID_PARAM',
    );
  });
});

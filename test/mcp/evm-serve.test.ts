/**
 * The EVM tools as an agent sees them: the SDK's client talking to `wallet serve` spawned as a
 * process, against a real anvil node. No key goes in or out over serve; spending needs the
 * passphrase serve was started with; progress of a wait reaches the client.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { ethers } from 'ethers';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { isSecretSchema, schemaProperties, type JsonSchema } from '../../src/shared/json-schema.js';
import { ERROR_META_KEY } from '../../src/shared/protocol-meta.js';
import { ALL_TOOLS } from '../../src/tools/index.js';
import { ANVIL_FIRST_ACCOUNT, ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../helpers/anvil.js';
import { passphraseFileIn, tempHome } from '../helpers/io.js';
import { importAnvilAccount } from '../helpers/mcp.js';
import { approveAsOwner } from '../helpers/approvals.js';
import { WALLET_BIN } from '../helpers/paths.js';

const PASSPHRASE = 'agent passphrase';
const RECIPIENT = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';

async function serve(home: string, url: string, args: string[]): Promise<Client> {
  const client = new Client({ name: 'evm-test', version: '1' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [WALLET_BIN, 'serve', ...args],
      env: { PATH: process.env['PATH'] ?? '', WALLET_HOME: home, WALLET_EVM_LOCAL_URL: url },
      stderr: 'ignore',
    }),
  );
  return client;
}

type CallResult = Awaited<ReturnType<Client['callTool']>>;
const errorCode = (result: CallResult): string | undefined =>
  result.isError ? (result._meta?.[ERROR_META_KEY] as { code?: string } | undefined)?.code : undefined;

describe('EVM tools over wallet serve', () => {
  let node: AnvilNode;
  let home: string;
  let unlocked: Client;
  let readOnly: Client;

  before(async () => {
    // Blocks every second, so a wait really waits and reports progress while it does.
    node = await startAnvil({ blockTime: 1 });
    home = tempHome();
    await importAnvilAccount(home, PASSPHRASE, { walletAlias: 'agent', accountAlias: 'agent' });
    unlocked = await serve(home, node.url, ['--passphrase-file', passphraseFileIn(home, PASSPHRASE)]);
    readOnly = await serve(home, node.url, ['--read-only']);
  });
  after(async () => {
    await unlocked.close();
    await readOnly.close();
    await node.stop();
    rmSync(home, { recursive: true, force: true });
  });

  it('lists the EVM tools but neither key import nor export, and no secret argument', async () => {
    const { tools } = await unlocked.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ['evm_accounts_list', 'evm_account_create', 'evm_funds_send', 'evm_typed_data_sign']) {
      assert.ok(names.includes(name), name);
    }
    assert.ok(!names.includes('evm_account_import') && !names.includes('evm_account_export'));
    for (const tool of tools) {
      for (const [property, schema] of schemaProperties(tool.inputSchema as JsonSchema)) {
        assert.equal(isSecretSchema(schema), false, `${tool.name}.${property} is a secret`);
      }
    }
  });

  it('--read-only serves only what cannot sign or spend', async () => {
    const names = (await readOnly.listTools()).tools.map((tool) => tool.name).filter((name) => name.startsWith('evm_'));
    const expected = ALL_TOOLS.filter(
      (tool) => tool.name.startsWith('evm_') && tool.annotations.readOnlyHint && tool.localOnly !== true,
    );
    assert.deepEqual(names.sort(), expected.map((tool) => tool.name).sort());
    assert.ok(names.includes('evm_balance_get') && !names.includes('evm_funds_send'), names.join(', '));
    for (const tool of expected) assert.equal(tool.consent, undefined, `${tool.name} needs consent: it signs`);
  });

  it('pays with the served passphrase and reports the wait as progress', async () => {
    const progress: string[] = [];
    const pay = () =>
      unlocked.callTool(
        {
          name: 'evm_funds_send',
          arguments: {
            address: 'agent',
            to: RECIPIENT,
            value_wei: '1000000000000000000',
            network: 'local',
            wait: true,
          },
        },
        { onprogress: (update) => progress.push(update.message ?? '') },
      );
    // No policy grants this agent autonomy: the owner approves the payment, then the same call pays.
    await approveAsOwner(home, await pay());
    const result = await pay();
    assert.equal(result.isError, undefined, JSON.stringify(result.content));
    const paid = result.structuredContent as { status: string; from: string; hash: string };
    assert.deepEqual([paid.status, paid.from], ['success', ANVIL_FIRST_ACCOUNT]);
    assert.ok(
      progress.some((message) => message.includes(paid.hash)),
      progress.join('; '),
    );
    const balance = await unlocked.callTool({
      name: 'evm_balance_get',
      arguments: { address: RECIPIENT, network: 'local' },
    });
    assert.equal((balance.structuredContent as { ether: string }).ether, '10001');
    const key = ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, "m/44'/60'/0'/0/0").privateKey;
    assert.ok(!JSON.stringify(result).includes(key.slice(2)), 'the private key went over serve');
  });

  it('a server started without a passphrase cannot sign', async () => {
    const locked = await serve(home, node.url, []);
    try {
      const sign = () => locked.callTool({ name: 'evm_message_sign', arguments: { address: 'agent', message: 'hi' } });
      await approveAsOwner(home, await sign());
      assert.equal(errorCode(await sign()), 'WALLET_LOCKED');
    } finally {
      await locked.close();
    }
  });
});

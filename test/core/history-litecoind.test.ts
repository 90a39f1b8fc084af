/**
 * core_txs_list against a real Bitcoin-Core-family node without an address index: Debian's
 * litecoind in regtest has no getaddresstxids/getaddressdeltas/getaddressmempool (-32601), so the
 * wallet must say it cannot list history there (BACKEND_INVALID, naming the address index), not
 * fail with INTERNAL or list nothing. The listing itself is tested on the recorded Dash shapes
 * (test/tools/core/txs-list.test.ts).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { findLitecoind, startRegtestNode, type RegtestNode } from '../helpers/litecoind.js';

const binary = findLitecoind();
if (!binary) {
  console.error(
    '\n!!! SKIPPING core_txs_list against litecoind: litecoind is not installed.\n!!! .ci/run installs it (apt-get install -y litecoind); install it to run these tests.\n',
  );
}

describe('core_txs_list on litecoind regtest (no address index)', { skip: binary ? false : 'no litecoind' }, () => {
  let node: RegtestNode;
  let home: string;
  let env: Record<string, string>;

  before(async () => {
    node = await startRegtestNode(binary ?? '');
    home = tempHome();
    env = { WALLET_CORE_REGTEST_URL: node.url };
    const passphraseFile = passphraseFileIn(home, 'regtest passphrase');
    const created = await wallet(
      ['core-wallet-create', '--alias', 'main', '--network', 'regtest', '--passphrase-file', passphraseFile],
      { home, env },
    );
    assert.equal(created.code, 0, created.stderr);
  });
  after(async () => {
    await node?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('the node really lacks the index RPCs', async () => {
    await assert.rejects(node.rpc('getaddresstxids', [{ addresses: [] }]), /Method not found/);
  });

  it('refuses with BACKEND_INVALID and a hint, exit 7, nothing on stdout', async () => {
    const listed = await wallet(['core-txs-list', '--wallet-id', 'main'], { home, env });
    assert.equal(listed.code, 7, listed.stderr);
    assert.match(listed.stderr, /BACKEND_INVALID/);
    assert.match(listed.stderr, /has no address index: it cannot list a wallet's transactions/);
    assert.match(listed.stderr, /Insight explorer/);
    assert.equal(listed.stdout, '');
    const json = await wallet(['core-txs-list', '--wallet-id', 'main', '--json'], { home, env });
    assert.equal(json.code, 7);
    assert.equal(json.stdout, '');
  });
});

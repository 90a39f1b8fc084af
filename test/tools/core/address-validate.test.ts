/**
 * core_address_validate, through a real SDK client on the wallet's server (in memory), on
 * addresses made here from random hashes with Base58Check and Dash's version bytes (P2PKH 76 and
 * P2SH 16 on mainnet, 140 and 19 on testnet and regtest), so no answer is written down by hand.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sha256 } from '@noble/hashes/sha2.js';
import { createBase58check } from '@scure/base';
import { tempHome } from '../../helpers/io.js';
import { localServer, type ToolCaller } from '../../helpers/mcp.js';

const base58check = createBase58check(sha256);
const address = (version: number) => base58check.encode(Uint8Array.from([version, ...randomBytes(20)]));

type Check = {
  valid: boolean;
  network: 'mainnet' | 'testnet' | null;
  networks: string[];
  type: 'p2pkh' | 'p2sh' | null;
  problem: string | null;
};

describe('core_address_validate', () => {
  let server: ToolCaller;
  const validate = (args: Record<string, unknown>) => server.call<Check>('core_address_validate', args);
  before(async () => {
    server = await localServer({ env: { WALLET_HOME: tempHome() }, caller: 'agent', localOnly: false });
  });
  after(() => server.close());

  it('tells the network and the type of a P2PKH and a P2SH address of each network', async () => {
    for (const [version, network, type] of [
      [76, 'mainnet', 'p2pkh'],
      [16, 'mainnet', 'p2sh'],
      [140, 'testnet', 'p2pkh'],
      [19, 'testnet', 'p2sh'],
    ] as const) {
      const check = await validate({ address: address(version) });
      assert.equal(check.valid, true, `version ${version}`);
      assert.equal(check.network, network);
      assert.equal(check.type, type);
      assert.equal(check.problem, null);
      assert.deepEqual(check.networks, network === 'mainnet' ? ['mainnet'] : ['testnet', 'regtest']);
    }
  });

  it('with network: valid only on that one (testnet and regtest share their prefixes)', async () => {
    const testnet = address(140);
    assert.equal((await validate({ address: testnet, network: 'regtest' })).valid, true);
    const other = await validate({ address: testnet, network: 'mainnet' });
    assert.equal(other.valid, false);
    assert.ok(other.problem);
  });

  it('an invalid address is a result, not an error: a broken checksum, a Bitcoin version byte', async () => {
    const good = address(76);
    const last = good.at(-1) === '1' ? '2' : '1';
    for (const bad of [good.slice(0, -1) + last, address(0), 'not an address']) {
      const check = await validate({ address: bad });
      assert.equal(check.valid, false, bad);
      assert.equal(check.type, null);
      assert.equal(check.network, null);
      assert.deepEqual(check.networks, []);
      assert.ok(check.problem, bad);
    }
  });
});

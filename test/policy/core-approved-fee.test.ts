/**
 * An approved Dash payment pays no more fee than the plan its owner saw, on a real regtest node
 * (Debian's litecoind standing in for Dash Core): the agent's core_funds_send waits for the
 * owner's yes with the fee of its dry run; when the wallet's coins change between the yes and the
 * run (the coin it planned with is spent meanwhile, so two smaller ones must pay and the fee
 * grows), the approved call is refused unsigned rather than paying a fee nobody saw.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { addressScript, encodeAddress, requireAddress } from '../../src/domain/dash/address.js';
import { readToolErrorMeta } from '../../src/shared/protocol-meta.js';
import { approveAsOwner } from '../helpers/approvals.js';
import { tempHome } from '../helpers/io.js';
import { findLitecoind, startRegtestNode, type RegtestNode } from '../helpers/litecoind.js';
import { localServer, type ToolCaller } from '../helpers/mcp.js';

const litecoind = findLitecoind();
if (!litecoind) {
  console.error(
    '\n!!! SKIPPING the approved Dash fee test: litecoind is not installed.\n!!! .ci/run installs it (apt-get install -y litecoind); install it to run this test.\n',
  );
}

const PASSPHRASE = 'approved fee passphrase';
const COIN = 100_000_000n;
const BURN = 'raw(76a914000000000000000000000000000000000000000088ac)';

const scriptHex = (address: string): string =>
  Buffer.from(addressScript(requireAddress(address, 'regtest'))).toString('hex');

type Funds = { txid: string; fee_duffs: string; inputs: { txid: string; vout: number }[] };

describe('an approved Dash payment and its fee', { skip: litecoind ? false : 'no litecoind' }, () => {
  let node: RegtestNode;
  let home: string;
  let owner: ToolCaller;
  let agent: ToolCaller;
  const stranger = encodeAddress(randomBytes(20), 'p2pkh', 'regtest');

  const ownerPays = (address: string, amount: bigint) =>
    owner.call<Funds>('core_funds_send', {
      wallet_id: 'main',
      network: 'regtest',
      address,
      amount_duffs: amount.toString(),
    });
  const newAddress = async () =>
    (await owner.call<{ address: string }>('core_address_create', { wallet_id: 'main' })).address;
  /** The agent's payment of 25 DASH: its raw result (an approval asked, a refusal, or sent). */
  const agentPays = () =>
    agent.client.callTool({
      name: 'core_funds_send',
      arguments: { wallet_id: 'main', network: 'regtest', address: stranger, amount_duffs: (25n * COIN).toString() },
    });

  before(async () => {
    node = await startRegtestNode(litecoind ?? '');
    home = tempHome();
    const env = { WALLET_HOME: home, WALLET_CORE_REGTEST_URL: node.url };
    owner = await localServer({ env, passphrase: PASSPHRASE });
    agent = await localServer({ env, passphrase: PASSPHRASE, caller: 'agent' });
    await owner.call('core_wallet_import', {
      alias: 'main',
      network: 'regtest',
      mnemonic: generateMnemonic(wordlist, 128),
      discover: false,
    });
    // Two coinbases of 50, matured; then coins of about 30, 20 and 10: largest first, a payment
    // of 25 takes the 30 alone, and without it needs the 20 and the 10.
    for (let i = 0; i < 2; i++) await node.rpc('generatetodescriptor', [1, `raw(${scriptHex(await newAddress())})`]);
    await node.rpc('generatetodescriptor', [100, BURN]);
    await ownerPays(await newAddress(), 20n * COIN);
    await node.rpc('generatetodescriptor', [1, BURN]);
    await ownerPays(stranger, 40n * COIN);
    await node.rpc('generatetodescriptor', [1, BURN]);
  });
  after(async () => {
    await agent?.close();
    await owner?.close();
    await node?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('a fee that grew after the yes refuses the approved call, unsigned; a new yes pays the fee shown', async () => {
    const asked = await agentPays();
    const shown = String(readToolErrorMeta(asked._meta)?.details?.['fee']);
    assert.match(shown, /^\d+$/, 'the approval names the fee of the plan');
    await approveAsOwner(home, asked);
    // Before the agent repeats its call, the owner spends the coin its plan used: two smaller
    // coins must pay instead, and the fee grows with the second input.
    await ownerPays(stranger, 29n * COIN);
    const mempool = await node.rpc<string[]>('getrawmempool');
    const refused = await agentPays();
    const error = readToolErrorMeta(refused._meta);
    assert.equal(error?.code, 'POLICY_VIOLATION', JSON.stringify(refused.content));
    assert.match(error?.message ?? '', new RegExp(`above max_fee_duffs ${shown};`));
    assert.deepEqual(await node.rpc<string[]>('getrawmempool'), mempool, 'a fee the owner never saw was paid');

    // Asked again, the owner sees the new fee; approved, the payment pays exactly that.
    const again = await agentPays();
    const grown = String(readToolErrorMeta(again._meta)?.details?.['fee']);
    assert.ok(BigInt(grown) > BigInt(shown), `the fee ${grown} did not grow from ${shown}`);
    await approveAsOwner(home, again);
    const paid = await agentPays();
    assert.equal(paid.isError, undefined, JSON.stringify(paid.content));
    const sent = paid.structuredContent as Funds;
    assert.equal(sent.fee_duffs, grown);
    assert.equal(sent.inputs.length, 2);
    assert.ok((await node.rpc<string[]>('getrawmempool')).includes(sent.txid));
  });
});

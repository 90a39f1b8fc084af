import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServerContext } from '@modelcontextprotocol/server';
import { callDigest, canAskForm, CONFIRM_KEY, Confirmations } from '../../src/mcp/confirmation.js';
import type { SharedQuestions } from '../../src/domain/state/store.js';
import { ALL_TOOLS } from '../../src/tools/index.js';

function toolNamed(name: string) {
  const found = ALL_TOOLS.find((candidate) => candidate.name === name);
  assert.ok(found, name);
  return found;
}

const tool = toolNamed('core_wallet_delete');

/** The parts of a handler context the confirmation reads. */
function context(options: { responses?: Record<string, unknown>; state?: unknown } = {}): ServerContext {
  return {
    mcpReq: { inputResponses: options.responses, requestState: () => options.state },
  } as unknown as ServerContext;
}

const accepted = { [CONFIRM_KEY]: { action: 'accept', content: { confirm: true } } };

describe('Confirmations', () => {
  it('binds an answer to the exact call it was asked about', async () => {
    const confirmations = new Confirmations();
    const args = { wallet_id: 'main', network: 'testnet' };
    const digest = callDigest(tool.name, args);
    const asked = await confirmations.ask(digest, 'Delete main?');
    const state = asked.requestState;
    assert.equal(typeof state, 'string');
    assert.ok(state);
    const payload = await confirmations.verify(state, context());

    const other = callDigest(tool.name, { wallet_id: 'savings', network: 'testnet' });
    assert.equal(
      (await confirmations.answer(tool, other, context({ responses: accepted, state: payload }))).kind,
      'none',
      'a yes for one wallet is not a yes for another',
    );
    const same = callDigest(tool.name, { network: 'testnet', wallet_id: 'main' });
    assert.equal(same, digest, 'key order does not matter');
    assert.equal(
      (await confirmations.answer(tool, same, context({ responses: accepted, state: payload }))).kind,
      'yes',
    );
    assert.equal(
      (await confirmations.answer(tool, digest, context({ responses: accepted, state: payload }))).kind,
      'none',
      'a yes is good for one call: the same answer sent again is no answer',
    );
    assert.equal(
      (await confirmations.answer(tool, digest, context({ responses: accepted }))).kind,
      'none',
      'an answer without the server state is not a confirmation',
    );
  });

  it('takes one yes of two sent at once, per process', async () => {
    const confirmations = new Confirmations();
    const digest = callDigest(tool.name, { wallet_id: 'main', network: 'testnet' });
    const payload = await confirmations.verify(
      (await confirmations.ask(digest, 'Delete?')).requestState ?? '',
      context(),
    );
    const answers = await Promise.all(
      [1, 2].map(() => confirmations.answer(tool, digest, context({ responses: accepted, state: payload }))),
    );
    assert.deepEqual(answers.map((answer) => answer.kind).sort(), ['none', 'yes']);
  });

  it('takes anything but an explicit yes as a decline', async () => {
    const confirmations = new Confirmations();
    const digest = callDigest(tool.name, { wallet_id: 'main', network: 'testnet' });
    for (const response of [
      { action: 'decline' },
      { action: 'cancel' },
      { action: 'accept', content: { confirm: false } },
      { action: 'accept', content: { confirm: 'yes' } },
    ]) {
      const payload = await confirmations.verify(
        (await confirmations.ask(digest, 'Delete?')).requestState ?? '',
        context(),
      );
      const answer = await confirmations.answer(
        tool,
        digest,
        context({ responses: { [CONFIRM_KEY]: response }, state: payload }),
      );
      assert.equal(answer.kind, 'declined', JSON.stringify(response));
      assert.equal(answer.kind === 'declined' ? answer.error.code : undefined, 'POLICY_VIOLATION');
    }
  });

  it('refuses state minted by another process (another key) and tampered state', async () => {
    const mine = new Confirmations();
    const theirs = new Confirmations();
    const asked = await theirs.ask(callDigest(tool.name, { wallet_id: 'main', network: 'testnet' }), 'Delete?');
    const state = asked.requestState ?? '';
    assert.notEqual(state, '');
    await assert.rejects(mine.verify(state, context()));
    await assert.rejects(theirs.verify(`${state.slice(0, -2)}AA`, context()));
  });

  it("with shared questions (a state store), verifies another instance's state and spends a yes once for all", async () => {
    // What the store keeps (src/domain/state/pg/questions.ts, tested against PostgreSQL in
    // test/state/replica-ops.test.ts): one key, and the ids answered yes.
    const key = new Uint8Array(32).fill(7);
    const spent = new Set<string>();
    let reads = 0;
    let down = true;
    const shared = (): Promise<SharedQuestions> => {
      reads += 1;
      if (down) return Promise.reject(new Error('store unreachable'));
      return Promise.resolve({
        key: () => Promise.resolve(key),
        spend: (id) => Promise.resolve(!spent.has(id) && Boolean(spent.add(id))),
        spent: (id) => Promise.resolve(spent.has(id)),
      });
    };
    const asking = new Confirmations(shared);
    const answering = new Confirmations(shared);
    assert.equal(reads, 0, 'nothing is read before a question is asked');
    const digest = callDigest(tool.name, { wallet_id: 'main', network: 'testnet' });
    await assert.rejects(asking.ask(digest, 'Delete?'), /store unreachable/);
    down = false;
    const state = (await asking.ask(digest, 'Delete?')).requestState ?? '';
    const payload = await answering.verify(state, context());
    assert.equal((await answering.answer(tool, digest, context({ responses: accepted, state: payload }))).kind, 'yes');
    assert.equal(
      (await asking.answer(tool, digest, context({ responses: accepted, state: payload }))).kind,
      'none',
      'a yes spent at one instance is spent at every other',
    );
    await assert.rejects(new Confirmations().verify(state, context()), 'a per-process key does not verify it');
  });

  it('asks only clients that declare form elicitation', () => {
    assert.equal(canAskForm(undefined), false);
    assert.equal(canAskForm({}), false);
    assert.equal(canAskForm({ elicitation: { url: {} } }), false);
    assert.equal(canAskForm({ elicitation: { form: {} } }), true);
    assert.equal(canAskForm({ elicitation: {} }), true, '2025-06-18 clients declare elicitation: {} for form mode');
  });
});

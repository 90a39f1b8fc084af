import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServerContext } from '@modelcontextprotocol/server';
import { CONFIRM_KEY, Confirmations } from '../../src/mcp/confirmation.js';
import { ALL_TOOLS } from '../../src/tools/index.js';

function toolNamed(name: string) {
  const found = ALL_TOOLS.find((candidate) => candidate.name === name);
  assert.ok(found, name);
  return found;
}

const tool = toolNamed('core_wallet_delete');
const ELICITING = { elicitation: { form: {} } };

/** The parts of a handler context the confirmation reads. */
function context(options: { responses?: Record<string, unknown>; state?: unknown } = {}): ServerContext {
  return {
    mcpReq: { inputResponses: options.responses, requestState: () => options.state },
  } as unknown as ServerContext;
}

/** A call as sent, and as validated (the same here: these arguments need no defaults). */
const call = (args: Record<string, unknown>) => ({ args, input: args });

const accepted = { [CONFIRM_KEY]: { action: 'accept', content: { confirm: true } } };

describe('Confirmations', () => {
  it('binds an answer to the exact call it was asked about', async () => {
    const confirmations = new Confirmations();
    const args = { wallet_id: 'main', network: 'testnet' };
    const first = await confirmations.step(tool, call(args), context(), ELICITING, () => Promise.resolve(undefined));
    assert.equal(first.kind, 'ask');
    const state = first.kind === 'ask' ? first.result.requestState : undefined;
    assert.equal(typeof state, 'string');
    assert.ok(state);
    const payload = await confirmations.verify(state, context());

    const other = await confirmations.step(
      tool,
      call({ wallet_id: 'savings', network: 'testnet' }),
      context({ responses: accepted, state: payload }),
      ELICITING,
      () => Promise.resolve(undefined),
    );
    assert.equal(other.kind, 'ask', 'a yes for one wallet is not a yes for another');

    const same = await confirmations.step(
      tool,
      call({ network: 'testnet', wallet_id: 'main' }),
      context({ responses: accepted, state: payload }),
      ELICITING,
      () => Promise.resolve(undefined),
    );
    assert.equal(same.kind, 'proceed', 'same arguments, any key order');
    const replayed = await confirmations.step(
      tool,
      call(args),
      context({ responses: accepted, state: payload }),
      ELICITING,
      () => Promise.resolve(undefined),
    );
    assert.equal(replayed.kind, 'ask', 'a yes is good for one call: the same answer sent again is asked again');

    const unsolicited = await confirmations.step(tool, call(args), context({ responses: accepted }), ELICITING, () =>
      Promise.resolve(undefined),
    );
    assert.equal(unsolicited.kind, 'ask', 'an answer without the server state is not a confirmation');
  });

  it('refuses state minted by another process (another key) and tampered state', async () => {
    const mine = new Confirmations();
    const theirs = new Confirmations();
    const asked = await theirs.step(tool, call({ wallet_id: 'main', network: 'testnet' }), context(), ELICITING, () =>
      Promise.resolve(undefined),
    );
    const state = asked.kind === 'ask' ? (asked.result.requestState ?? '') : '';
    assert.notEqual(state, '');
    await assert.rejects(mine.verify(state, context()));
    await assert.rejects(theirs.verify(`${state.slice(0, -2)}AA`, context()));
  });

  it('does not ask a client without form elicitation, nor for a dry run', async () => {
    const confirmations = new Confirmations();
    const args = { wallet_id: 'main', network: 'testnet' };
    const none = await confirmations.step(tool, call(args), context(), {}, () => Promise.resolve(undefined));
    assert.equal(none.kind, 'proceed');
    const urlOnly = await confirmations.step(tool, call(args), context(), { elicitation: { url: {} } }, () =>
      Promise.resolve(undefined),
    );
    assert.equal(urlOnly.kind, 'proceed');
    const legacyForm = await confirmations.step(tool, call(args), context(), { elicitation: {} }, () =>
      Promise.resolve(undefined),
    );
    assert.equal(legacyForm.kind, 'ask', '2025-06-18 clients declare elicitation: {} for form mode');
    const payment = toolNamed('evm_funds_send');
    const dry = await confirmations.step(payment, call({ dry_run: true }), context(), ELICITING, () =>
      Promise.resolve(undefined),
    );
    assert.equal(dry.kind, 'proceed');
    const noDryRun = await confirmations.step(tool, call({ ...args, dry_run: true }), context(), ELICITING, () =>
      Promise.resolve(undefined),
    );
    assert.equal(noDryRun.kind, 'ask', 'a dry_run key on a tool without dry runs changes nothing');
  });
});

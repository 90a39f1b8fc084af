/**
 * The audit line's outcome comes from the definition (`outcome`, `dryRunField`), never from the
 * names of the audit fields: a tool whose audit says `txid` but declares nothing is `ok`, and one
 * that declares `sent` is `sent` whatever its fields are called.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { z } from 'zod';
import { appendAuditRecord, type AuditRecord } from '../../src/domain/policy/audit-log.js';
import { WalletServices } from '../../src/domain/services.js';
import { ToolCatalogue } from '../../src/tools/catalogue.js';
import { defineTool, type ToolContext } from '../../src/tools/define.js';
import { invokeTool } from '../../src/tools/invoke.js';
import { tempHome } from '../helpers/io.js';

const TXID = 'ab'.repeat(32);
const DESTRUCTIVE = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

function payingTool(declared: { outcome?: 'signed' | 'sent'; dryRunField?: string }) {
  return defineTool({
    name: 'test_funds_pay',
    group: 'core_funds',
    title: 'Pay',
    summary: 'Pays',
    description: 'Pays, for the test.',
    input: () => z.strictObject({ dry_run: z.boolean().optional().describe('Plan only.') }),
    output: () => z.object({ id: z.string().describe('The transaction id.') }),
    annotations: DESTRUCTIVE,
    consent: 'human',
    handler: async () => ({ id: TXID }),
    // Named like a broadcast's fields on purpose: names decide nothing.
    audit: (_input, output) => ({ txid: output?.id, hash: output?.id, signed_only: true, dry_run: true }),
    ...declared,
  });
}

describe('audit outcome, as declared', () => {
  const home = tempHome();
  after(() => rmSync(home, { recursive: true, force: true }));

  async function outcomeOf(tool: ReturnType<typeof payingTool>, args: Record<string, unknown>): Promise<unknown> {
    const context = {
      // The files backend's audit log (WalletServices.appendAudit without a state store).
      services: {
        dataDir: home,
        appendAudit: (record: AuditRecord) => appendAuditRecord(home, record),
      } as unknown as WalletServices,
      catalogue: new ToolCatalogue([tool]),
      signal: new AbortController().signal,
      progress: () => undefined,
      authority: 'terminal',
    } as unknown as ToolContext;
    await invokeTool(tool, args, context);
    const lines = readFileSync(join(home, 'audit.log'), 'utf8').trimEnd().split('\n');
    return (JSON.parse(lines.at(-1) ?? '{}') as { outcome?: unknown }).outcome;
  }

  it('is ok without a declaration, whatever the audit fields are called', async () => {
    assert.equal(await outcomeOf(payingTool({}), {}), 'ok');
  });

  it('is the declared outcome of a call that succeeded', async () => {
    assert.equal(await outcomeOf(payingTool({ outcome: 'sent' }), {}), 'sent');
    assert.equal(await outcomeOf(payingTool({ outcome: 'signed' }), {}), 'signed');
  });

  it('is dry_run when the declared dry-run field is set, and only then', async () => {
    const tool = payingTool({ outcome: 'sent', dryRunField: 'dry_run' });
    assert.equal(await outcomeOf(tool, { dry_run: true }), 'dry_run');
    assert.equal(await outcomeOf(tool, { dry_run: false }), 'sent');
  });
});

describe('an audit line the state store cannot take', () => {
  const home = tempHome();
  after(() => rmSync(home, { recursive: true, force: true }));

  it('goes to the local audit.log instead of being lost', async () => {
    const tool = payingTool({ outcome: 'sent' });
    const context = {
      // A store nothing listens on (port 1): refused at once, BUSY.
      services: new WalletServices({
        dataDir: home,
        env: { WALLET_STATE_URL: 'postgres://wallet@127.0.0.1:1/wallet' },
      }),
      catalogue: new ToolCatalogue([tool]),
      signal: new AbortController().signal,
      progress: () => undefined,
      authority: 'terminal',
    } as unknown as ToolContext;
    const output = await invokeTool(tool, {}, context);
    assert.equal(output['id'], TXID, "the call's own result stands");
    const lines = readFileSync(join(home, 'audit.log'), 'utf8').trimEnd().split('\n');
    const last = JSON.parse(lines.at(-1) ?? '{}') as { tool?: unknown; outcome?: unknown };
    assert.equal(last.tool, 'test_funds_pay');
    assert.equal(last.outcome, 'sent');
    await context.services.closeState();
  });
});

import assert from 'node:assert/strict';
import { ERROR_META_KEY, readToolErrorMeta } from '../../src/shared/protocol-meta.js';
import { wallet } from './io.js';

/**
 * The owner approves, at a terminal (in-process CLI with a fake TTY answering `y`), the approval
 * an agent's call ended with; returns its id. The agent's same call then goes through once.
 */
export async function approveAsOwner(
  home: string,
  result: { _meta?: Record<string, unknown> | undefined },
): Promise<string> {
  const meta = readToolErrorMeta(result._meta);
  assert.equal(meta?.code, 'APPROVAL_REQUIRED', JSON.stringify(result._meta?.[ERROR_META_KEY]));
  const id = String(meta?.details?.['approval_id']);
  const approved = await wallet(['approvals', 'approve', id], { home, tty: true, stdin: 'y\n' });
  assert.equal(approved.code, 0, approved.stderr);
  return id;
}

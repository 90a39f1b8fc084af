import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ERROR_CODES, WalletError, isErrorCode } from '../../src/domain/errors.js';

describe('WalletError', () => {
  it('keeps a stable code, a one-line message and a hint', () => {
    const error = new WalletError('WALLET_NOT_FOUND', "No wallet 'main'.\n  Check the id.", { hint: 'Known:\nspend' });
    assert.equal(error.code, 'WALLET_NOT_FOUND');
    assert.equal(error.message, "No wallet 'main'. Check the id.");
    assert.equal(error.hint, 'Known: spend');
  });
  it('walks its cause chain, stopping at a cycle', () => {
    const root = new Error('root');
    const middle = new Error('middle', { cause: root });
    const top = new WalletError('BACKEND_UNAVAILABLE', 'Node down.', { cause: middle });
    assert.deepEqual([...top.walk()], [top, middle, root]);
    const loop = new WalletError('INTERNAL', 'x');
    Object.defineProperty(loop, 'cause', { value: loop });
    assert.deepEqual([...loop.walk()], [loop]);
  });
  it('knows exactly the design codes', () => {
    assert.deepEqual(
      [...ERROR_CODES],
      [
        'INVALID_PARAM',
        'WALLET_NOT_FOUND',
        'WALLET_LOCKED',
        'NETWORK_MISMATCH',
        'NETWORK_REQUIRED',
        'INSUFFICIENT_FUNDS',
        'BACKEND_UNAVAILABLE',
        'POLICY_VIOLATION',
        'APPROVAL_REQUIRED',
        'INTERNAL',
        'BUSY',
        'KEYSTORE_DAMAGED',
        'BACKEND_INVALID',
      ],
    );
    assert.ok(isErrorCode('WALLET_LOCKED'));
    assert.ok(!isErrorCode('NOPE'));
  });
});

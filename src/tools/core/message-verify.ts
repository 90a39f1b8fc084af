import { z } from 'zod';
import { defineTool } from '../define.js';
import { CoreAddress, Message } from '../fields.js';

/** The curve loads on a call's first use, not at start-up. */
const messages = () => import('../../domain/dash/message.js');

export const coreMessageVerify = defineTool({
  name: 'core_message_verify',
  group: 'core_address',
  checkField: 'valid',
  title: 'Verify a message',
  summary: 'Verify a Dash signed message',
  description: [
    "Checks a signature in Dash Core's signed-message format against an address and message.",
    'valid is false for a signature by another key or of another message; malformed input',
    '(not Base64, wrong length, not a P2PKH address) is an INVALID_PARAM error.',
    '',
    'Example: wallet core-message-verify --address yRd4… --message "I own this" --signature H…=',
  ].join('\n'),
  input: () =>
    z.strictObject({
      address: CoreAddress.describe('The claimed signer. A P2PKH address.'),
      message: Message,
      signature: z.string().min(1).max(200).describe('The signature, Base64.'),
    }),
  output: () => z.object({ valid: z.boolean().describe('Whether the address signed exactly this message.') }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ address, message, signature }) => {
    const { verifyMessage } = await messages();
    return { valid: verifyMessage(message, address.trim(), signature) };
  },
});

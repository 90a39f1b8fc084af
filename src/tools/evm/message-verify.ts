import { z } from 'zod';
import { defineTool } from '../define.js';
import { EvmAddressOrAlias, Message } from '../fields.js';

/** The EVM domain (and viem) load on a call's first use. */
const messages = () => import('../../domain/evm/messages.js');

const Signature = z.string().min(1).max(200).describe('The signature, 65 bytes in hex. 0x and 130 hex digits.');

export const evmMessageVerify = defineTool({
  name: 'evm_message_verify',
  group: 'evm_message',
  checkField: 'valid',
  title: 'Verify a message (EIP-191)',
  summary: 'Verify an EIP-191 signed message',
  description: [
    'Recovers the signer of an EIP-191 (personal_sign) signature and compares it with address.',
    'valid is false for a signature by another key or of another message; a malformed signature or',
    'address is an INVALID_PARAM error.',
    '',
    'Example: wallet evm-message-verify --address 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 --message "I own this" --signature <0x… from evm-message-sign>',
  ].join('\n'),
  input: () =>
    z.strictObject({
      address: EvmAddressOrAlias.describe("The claimed signer. An address, or a keystore account's alias."),
      message: Message,
      signature: Signature,
    }),
  output: () => z.object({ valid: z.boolean().describe('Whether the address signed exactly this message.') }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ address, message, signature }, { services }) => ({
    valid: await (await messages()).verifyMessage(services, { address, message, signature }),
  }),
});

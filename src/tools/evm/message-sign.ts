import { z } from 'zod';
import { defineTool } from '../define.js';
import { EvmAccount, Message } from '../fields.js';

/** The EVM domain (and viem) load on a call's first use. */
const messages = () => import('../../domain/evm/messages.js');

export const evmMessageSign = defineTool({
  name: 'evm_message_sign',
  group: 'evm_message',
  title: 'Sign a message (EIP-191)',
  summary: 'Sign a message with an EVM account (EIP-191)',
  description: [
    'Signs a text as personal_sign does (EIP-191: "\\x19Ethereum Signed Message:\\n" + length +',
    'message), so anyone can check it with evm-message-verify, ethers or viem. Needs the keystore',
    'passphrase. The same signature is valid on every EVM network.',
    '',
    'Example: wallet evm-message-sign --address savings --message "I own this"',
  ].join('\n'),
  input: () =>
    z.strictObject({
      address: EvmAccount.describe('The signing account. A keystore address or alias.'),
      message: Message,
    }),
  output: () =>
    z.object({
      address: z.string().describe('The signing address.'),
      message: z.string().describe('The message signed.'),
      signature: z.string().describe('The signature, 65 bytes hex (r, s, v).'),
    }),
  // Uses the private key: never read-only, so `wallet serve --read-only` stays watch-only.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // A signature speaks for the owner (a login, a proof of funds): in serve, a human says yes first.
  consent: 'human',
  // Nobody is asked to approve a signature by an account the keystore does not hold.
  precheck: async ({ address }, { services }) => {
    const { resolveAccount } = await import('../../domain/evm/accounts.js');
    await resolveAccount(services, address);
  },
  handler: async ({ address, message }, { services }) => {
    const { signMessage } = await messages();
    const signed = await signMessage(services, { from: address, message });
    return { address: signed.address, message, signature: signed.signature };
  },
  audit: (input, output) => ({ from: output?.address ?? input.address }),
});

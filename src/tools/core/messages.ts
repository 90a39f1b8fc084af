import { z } from 'zod';
import { defineTool } from '../define.js';
import { CoreAddress, OptionalCoreNetwork, WalletId } from '../fields.js';

/** The curve, HD keys and the keystore load on a call's first use, not at start-up. */
const messages = () => import('../../domain/dash/message.js');
const wallets = () => import('../../domain/dash/wallets.js');

const Message = z.string().max(100_000).describe('UTF-8 text. The message itself.');

export const coreMessageSign = defineTool({
  name: 'core_message_sign',
  group: 'core_message',
  title: 'Sign a message',
  summary: "Sign a message with one of the wallet's addresses",
  description: [
    "Signs a text with the key of one of the wallet's addresses, in Dash Core's signmessage format",
    '(compact recoverable signature, Base64), so anyone can check it with core-message-verify or',
    "Dash Core's verifymessage. Needs the keystore passphrase.",
    '',
    'Example: wallet core-message-sign --wallet-id main --address yRd4… --message "I own this"',
  ].join('\n'),
  input: () =>
    z.strictObject({
      wallet_id: WalletId,
      network: OptionalCoreNetwork,
      address: CoreAddress.describe('The wallet address whose key signs. core-addresses-list lists them.'),
      message: Message,
    }),
  output: () =>
    z.object({
      address: z.string().describe('The signing address.'),
      message: z.string().describe('The message signed.'),
      signature: z.string().describe('The signature, Base64 (65 bytes).'),
    }),
  // Uses the private key: never read-only, so `wallet serve --read-only` stays watch-only.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  // A signature speaks for the owner (a login, a proof of funds): in serve, a human says yes first.
  consent: 'human',
  // Nobody is asked to approve a signature by an address the wallet does not hold.
  precheck: async ({ wallet_id, network, address }, { services }) => {
    const [{ openWallet }, { issuedAddress }] = await Promise.all([wallets(), import('../../domain/dash/keys.js')]);
    await issuedAddress(services, await openWallet(services, wallet_id, network), address.trim());
  },
  handler: async ({ wallet_id, network, address, message }, { services }) => {
    const [{ openWallet }, { withAddressKey }, { signMessage }] = await Promise.all([
      wallets(),
      import('../../domain/dash/keys.js'),
      messages(),
    ]);
    const entry = await openWallet(services, wallet_id, network);
    const signature = await withAddressKey(services, entry, address.trim(), (key) => signMessage(message, key));
    return { address: address.trim(), message, signature };
  },
  audit: (input, output) => ({ network: input.network, wallet_id: input.wallet_id, from: output?.address }),
});

export const coreMessageVerify = defineTool({
  name: 'core_message_verify',
  group: 'core_message',
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

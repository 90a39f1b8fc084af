import { z } from 'zod';
import { defineTool } from '../define.js';
import { CoreAddress, Message, OptionalCoreNetwork, WalletId } from '../fields.js';

/** The curve, HD keys and the keystore load on a call's first use, not at start-up. */
const messages = () => import('../../domain/dash/message.js');
const wallets = () => import('../../domain/wallet/wallets.js');

export const coreMessageSign = defineTool({
  name: 'core_message_sign',
  group: 'core_address',
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

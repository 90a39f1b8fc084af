import { z } from 'zod';
import { defineTool } from '../define.js';
import { EvmAccount, EvmAddressOrAlias, RequiredEvmNetwork } from '../fields.js';

/** The EVM domain (and viem) load on a call's first use. */
const messages = () => import('../../domain/evm/messages.js');

const Message = z.string().max(100_000).describe('UTF-8 text. The message itself.');
const Signature = z.string().min(1).max(200).describe('The signature, 65 bytes in hex. 0x and 130 hex digits.');

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

const TypedDataField = z.strictObject({
  name: z.string().min(1).describe('The field name.'),
  type: z.string().min(1).describe('Its Solidity type, e.g. address, uint256 or another struct.'),
});

const TypedData = z
  .strictObject({
    domain: z
      .record(z.string(), z.unknown())
      .describe('The EIP-712 domain. Its fields: name, version, chainId, verifyingContract, salt.'),
    types: z.record(z.string(), z.array(TypedDataField)).describe('The struct types. Each a list of {name, type}.'),
    primaryType: z.string().min(1).describe('The type of message.'),
    message: z.record(z.string(), z.unknown()).describe('The values to sign.'),
  })
  .describe('The EIP-712 typed data to sign. {domain, types, primaryType, message}, as eth_signTypedData_v4 takes it.');

export const evmTypedDataSign = defineTool({
  name: 'evm_typed_data_sign',
  group: 'evm_message',
  title: 'Sign typed data (EIP-712)',
  summary: 'Sign EIP-712 typed data with an EVM account',
  description: [
    'Signs EIP-712 typed data as eth_signTypedData_v4 does. Such a signature can authorize spending',
    '(an ERC-20 permit, an order), so this counts as destructive: network is required and a domain',
    "chainId must be that network's (NETWORK_MISMATCH otherwise). Needs the keystore passphrase.",
    'Returns the signature and the EIP-712 hash that was signed.',
    '',
    'Example: wallet evm-typed-data-sign --address savings --network sepolia --typed-data "$(cat permit.json)"',
  ].join('\n'),
  input: () =>
    z.strictObject({
      address: EvmAccount.describe('The signing account. A keystore address or alias.'),
      network: RequiredEvmNetwork,
      typed_data: TypedData,
    }),
  output: () =>
    z.object({
      address: z.string().describe('The signing address.'),
      signature: z.string().describe('The signature, 65 bytes hex (r, s, v).'),
      hash: z.string().describe('The EIP-712 hash signed.'),
    }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  consent: 'policy',
  handler: async ({ address, network, typed_data }, { services, authority }) =>
    (await messages()).signTypedData(services, { from: address, network, typedData: typed_data, authority }),
  audit: (input, output) => ({
    network: input.network,
    from: output?.address ?? input.address,
    typed_data_hash: output?.hash,
  }),
});

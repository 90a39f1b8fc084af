import { z } from 'zod';
import { defineTool } from '../define.js';
import { EvmAccount, RequiredEvmNetwork } from '../fields.js';

/** The EVM domain (and viem) load on a call's first use. */
const messages = () => import('../../domain/evm/messages.js');

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

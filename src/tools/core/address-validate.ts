import { z } from 'zod';
import { validateAddress } from '../../domain/dash/address.js';
import { defineTool } from '../define.js';
import { CoreAddress } from '../fields.js';

export const coreAddressValidate = defineTool({
  name: 'core_address_validate',
  group: 'core_address',
  checkField: 'valid',
  title: 'Validate an address',
  summary: 'Check a Dash address: checksum, type and network',
  description: [
    'Checks that a string is a Dash address: Base58Check checksum, length, and a P2PKH or P2SH',
    'version byte, and tells which network it belongs to. Testnet and regtest share version bytes,',
    'so such an address is valid on both. With network, valid is false for another network.',
    'An invalid address is a result (valid: false, with the problem), not an error.',
    '',
    'Example: wallet core-address-validate --address yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt',
  ].join('\n'),
  input: () =>
    z.strictObject({
      address: CoreAddress,
      network: z
        .enum(['mainnet', 'testnet', 'regtest'])
        .optional()
        .describe('Also check the network. The address must be for this one.'),
    }),
  output: () =>
    z.object({
      valid: z.boolean().describe('Whether it is a valid Dash address (for network, when given).'),
      network: z
        .enum(['mainnet', 'testnet'])
        .nullable()
        .describe('mainnet, or testnet for the testnet/regtest prefixes; null when not an address.'),
      networks: z.array(z.string()).describe('Every Dash network the address is valid on.'),
      type: z
        .enum(['p2pkh', 'p2sh'])
        .nullable()
        .describe('Pay to public key hash or to script hash; null when invalid.'),
      problem: z.string().nullable().describe('Why it is invalid; null when valid.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  handler: async ({ address, network }) => {
    const check = validateAddress(address, network);
    const family = check.networks.includes('mainnet')
      ? ('mainnet' as const)
      : check.networks.length > 0
        ? ('testnet' as const)
        : null;
    return { valid: check.valid, network: family, networks: check.networks, type: check.type, problem: check.problem };
  },
});

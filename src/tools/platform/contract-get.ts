import { z } from 'zod';
import { defineTool } from '../define.js';
import { describedWithBrief } from '../lean-schema.js';
import { OptionalPlatformNetwork, PlatformId } from './platform-fields.js';

export const platformContractGet = defineTool({
  name: 'platform_contract_get',
  group: 'platform_identity',
  title: 'Platform data contract',
  summary: 'Get a Platform data contract and its document types',
  description: [
    'Reads a Dash Platform data contract by its id: its owner, version and each document type',
    'with its JSON Schema (properties, indices), which platform_documents_list queries. Proved: an',
    'answer that does not check is BACKEND_INVALID, never shown; a contract proved absent is',
    'INVALID_PARAM.',
    '',
    'Example: wallet platform-contract-get --contract-id GWRSAVFMjXx8HpQFaNJMqBV7MBgMK4br5UESsB4S31Ec',
  ].join('\n'),
  input: () =>
    z.strictObject({
      contract_id: describedWithBrief(PlatformId, "The data contract's id, base58 (32 bytes).", ''),
      network: OptionalPlatformNetwork,
    }),
  output: () =>
    z.object({
      network: z.string().describe('The Platform network asked.'),
      contract_id: z.string().describe("The contract's id, base58."),
      owner_id: z.string().describe('The identity that owns it, base58.'),
      version: z.int().describe("The contract's version."),
      document_types: z.array(z.string()).describe('The names of its document types.'),
      document_schemas: z
        .record(z.string(), z.unknown())
        .describe("Each document type's JSON Schema (properties, indices), by name."),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ contract_id, network }, { services }) => {
    const { platformNetwork } = await import('../../domain/platform/network.js');
    const { fetchContract } = await import('../../domain/platform/documents.js');
    const resolved = platformNetwork(await services.platformNetworks(), network);
    const contract = await fetchContract(resolved, contract_id);
    return {
      network: resolved.network,
      contract_id: contract.id,
      owner_id: contract.ownerId,
      version: contract.version,
      document_types: Object.keys(contract.documentSchemas),
      document_schemas: contract.documentSchemas,
    };
  },
});

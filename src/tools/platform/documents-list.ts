import { z } from 'zod';
import { defineTool } from '../define.js';
import { describedWithBrief } from '../lean-schema.js';
import { OptionalPlatformNetwork, PlatformId } from './platform-fields.js';

/** At most this many documents a call returns (Platform's own most, and its default page). */
const MAX_DOCUMENTS = 100;

const WhereOperator = z.enum(['==', '>', '>=', '<', '<=', 'in', 'startsWith']);

export const platformDocumentsList = defineTool({
  name: 'platform_documents_list',
  group: 'platform_identity',
  title: 'Platform documents',
  summary: "List a data contract's documents of one type",
  description: [
    "Lists a Dash Platform data contract's documents of one type, proved: where clauses, order by,",
    `limit (at most ${MAX_DOCUMENTS}, Platform's default page when omitted) and start after a document id, for the`,
    'next page. A query must fit an index of the document type (platform_contract_get shows them);',
    'Platform refuses one that does not. Each document: its id, owner, revision and fields',
    '(identifiers base58, bytes base64). An answer that does not check is BACKEND_INVALID, never shown.',
    '',
    'DPNS names: contract GWRSAVFMjXx8HpQFaNJMqBV7MBgMK4br5UESsB4S31Ec, type domain; by owner:',
    'where [["records.identity","==","<identity id>"]].',
    '',
    'Example: wallet platform-documents-list --contract-id GWRSAVFMjXx8HpQFaNJMqBV7MBgMK4br5UESsB4S31Ec --document-type domain --limit 10',
  ].join('\n'),
  input: () =>
    z.strictObject({
      contract_id: describedWithBrief(PlatformId, "The data contract's id, base58 (32 bytes).", ''),
      document_type: describedWithBrief(
        z.string().min(1).max(64),
        'The document type, as the contract names it (e.g. domain for DPNS names).',
        '',
      ),
      where: describedWithBrief(
        z
          .array(z.tuple([z.string().min(1).max(256), WhereOperator, z.unknown()]))
          .max(10)
          .optional(),
        'Clauses all documents meet, each [field, operator, value], e.g. [["records.identity", "==", "<id>"]]; none when omitted.',
        '',
      ),
      order_by: describedWithBrief(
        z
          .array(z.tuple([z.string().min(1).max(256), z.enum(['asc', 'desc'])]))
          .max(4)
          .optional(),
        "The order, each [field, asc or desc], by indexed fields; the index's order when omitted.",
        '',
      ),
      limit: describedWithBrief(
        z.int().min(1).max(MAX_DOCUMENTS).optional(),
        `At most this many documents (1 to ${MAX_DOCUMENTS}); Platform's default page when omitted.`,
        '',
      ),
      start_after: describedWithBrief(
        PlatformId.optional(),
        'Only documents after this id: pass next_start_after for the next page.',
        '',
      ),
      network: OptionalPlatformNetwork,
    }),
  output: () =>
    z.object({
      network: z.string().describe('The Platform network asked.'),
      contract_id: z.string().describe('The data contract, base58.'),
      document_type: z.string().describe('The document type.'),
      documents: z
        .array(
          z.object({
            id: z.string().describe("The document's id, base58."),
            owner_id: z.string().describe('The identity that owns it, base58.'),
            revision: z.string().nullable().describe('Its revision (digits); null for a type without revisions.'),
            data: z.record(z.string(), z.unknown()).describe("Its fields, as the contract's schema names them."),
          }),
        )
        .describe('The documents, in the order asked.'),
      next_start_after: z
        .string()
        .nullable()
        .describe('The last id, to pass as start_after for the next page; null when the page was not full.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ contract_id, document_type, where, order_by, limit, start_after, network }, { services }) => {
    const { platformNetwork } = await import('../../domain/platform/network.js');
    const { listDocuments } = await import('../../domain/platform/documents.js');
    const resolved = platformNetwork(await services.platformNetworks(), network);
    // No limit asks for Platform's default page (the request carries none), at most MAX_DOCUMENTS.
    const wanted = limit ?? MAX_DOCUMENTS;
    const documents = await listDocuments(resolved, {
      contractId: contract_id,
      documentType: document_type,
      where: where ?? [],
      orderBy: order_by ?? [],
      limit: limit ?? 0,
      startAfter: start_after,
    });
    const page = documents.slice(0, wanted);
    return {
      network: resolved.network,
      contract_id,
      document_type,
      documents: page.map((document) => ({
        id: document.id,
        owner_id: document.ownerId,
        revision: document.revision,
        data: document.data,
      })),
      next_start_after: page.length === wanted ? (page.at(-1)?.id ?? null) : null,
    };
  },
});

/**
 * Platform data contracts and their documents, proved by the SDK: a contract by id (its document
 * types and their indexes), and a contract's documents of one type with where, order by, limit and
 * start after, as JSON values (identifiers in base58, bytes in base64, as the SDK writes them).
 */
import { WalletError } from '../errors.js';
import type { PlatformNetwork } from './network.js';
import { platformRead } from './sdk.js';

export type PlatformContract = {
  id: string;
  ownerId: string;
  version: number;
  /** Each document type's JSON Schema, by name. */
  documentSchemas: Record<string, unknown>;
};

/** A contract by id (base58), proved; absent is `INVALID_PARAM`. */
export async function fetchContract(network: PlatformNetwork, id: string): Promise<PlatformContract> {
  return platformRead(network, `data contract ${id}`, async (sdk) => {
    const contract = await sdk.contracts.fetch(id);
    if (!contract) {
      throw new WalletError(
        'INVALID_PARAM',
        `Platform ${network.network} has no data contract ${id} (proved absent).`,
        {
          hint: 'Check the contract id (base58, 32 bytes) and the network.',
        },
      );
    }
    const json = contract.toJSON(sdk.version()) as { version?: number; documentSchemas?: Record<string, unknown> };
    return {
      id: contract.id.toBase58(),
      ownerId: contract.ownerId.toBase58(),
      version: Number(json.version ?? 0),
      documentSchemas: json.documentSchemas ?? {},
    };
  });
}

export type DocumentsQuery = {
  contractId: string;
  documentType: string;
  /** `[field, operator, value]` clauses, as the SDK takes them. */
  where: [string, string, unknown][];
  orderBy: [string, 'asc' | 'desc'][];
  limit: number;
  startAfter: string | undefined;
};

export type PlatformDocument = { id: string; ownerId: string; revision: string | null; data: Record<string, unknown> };

/** A contract's documents of one type, proved, at most `query.limit`. */
export async function listDocuments(network: PlatformNetwork, query: DocumentsQuery): Promise<PlatformDocument[]> {
  return platformRead(network, `${query.documentType} documents of contract ${query.contractId}`, async (sdk) => {
    const found = await sdk.documents.query({
      dataContractId: query.contractId,
      documentTypeName: query.documentType,
      where: query.where as never,
      orderBy: query.orderBy,
      limit: query.limit,
      ...(query.startAfter === undefined ? {} : { startAfter: query.startAfter }),
    });
    const documents: PlatformDocument[] = [];
    for (const document of found.values()) {
      if (!document) continue;
      const json = document.toJSON(sdk.version()) as Record<string, unknown>;
      const data = Object.fromEntries(Object.entries(json).filter(([key]) => !key.startsWith('$')));
      documents.push({
        id: document.id.toBase58(),
        ownerId: document.ownerId.toBase58(),
        revision: document.revision === undefined ? null : document.revision.toString(),
        data,
      });
    }
    return documents;
  });
}

/**
 * A fake Dash Platform on loopback for tests: a DAPI that speaks gRPC-web (what `@dashevo/evo-sdk`
 * sends over `fetch`) and the quorum service the SDK reads its trusted keys from, both replaying
 * the recorded vectors of test/fixtures/platform-vectors (upstream's, MIT; see its README).
 *
 * Nothing is turned off: the SDK verifies every answer's GroveDB proof and quorum signature against
 * the recorded quorum key. A request is answered only when it is exactly a recorded one (its bytes
 * equal the recorded request encoded with `@dashevo/dapi-grpc`'s .proto files; a documents request,
 * which the 4.1.0 SDK sends as v1 while the recording is v0, by its decoded fields); any other
 * request gets a gRPC error and is listed in `unmatched`, which a test asserts empty. The answers
 * carry the recording's time: run the client with its clock at {@link FakeDapi.timeMs}
 * (test/helpers/shifted-clock.ts). `tamper` serves a doctored answer, for negative controls.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { base58 } from '@scure/base';
import type * as Protobuf from 'protobufjs';
import { listenOnFreePort } from './ports.js';

const require = createRequire(import.meta.url);
// protobufjs 6 (CommonJS), the version `@dashevo/dapi-grpc` 3.0.1 builds with.
const protobuf = require('protobufjs') as typeof Protobuf;

export const VECTORS_DIR = join(import.meta.dirname, '..', '..', '..', 'test', 'fixtures', 'platform-vectors');
const PROTO = require.resolve('@dashevo/dapi-grpc/protos/platform/v0/platform.proto');
const PACKAGE = 'org.dash.platform.dapi.v0.';

/** The recorded vector folders, by what they hold; each lists its recording session. */
export const VECTORS = {
  identity: 'test_identity_read',
  identityBalance: 'test_identity_balance_read',
  contract: 'test_data_contract_read',
  documentsList: 'document_list_document_query',
  documentById: 'document_read',
  tokenBalances: 'test_multiple_identity_token_balances',
  identityByKeyHash: 'test_identity_read_by_key',
  tokenStatuses: 'test_token_status',
  tokenTotalSupply: 'test_token_total_supply',
  /** Its own session (`dashmate_local_6`): replay it alone. */
  tokenPrices: 'test_direct_prices_tokens_ok',
  epochFirst: 'test_epoch_fetch',
  /** Epochs 193 and 194, which that network never reached: proved none. */
  epochsFrom193: 'test_epoch_list_limit',
} as const;
export type VectorName = keyof typeof VECTORS;

/** The recorded facts the tests check answers against (from the vectors' own requests). */
export const RECORDED = {
  /** The identity of test_identity_read and test_identity_balance_read: 32 bytes of 0x01. */
  identityId: '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi',
  /** The DPNS contract of the local_45 recordings. */
  dpnsContractId: 'GWRSAVFMjXx8HpQFaNJMqBV7MBgMK4br5UESsB4S31Ec',
  /** The `domain` document document_read asks for by `$id`. */
  domainDocumentId: 'FXyN2NZAdRFADgBQfb1XM1Qq7pWoEcgSWj1GaiQJqcrS',
  /** The token ids test_multiple_identity_token_balances asks the identity's balances of, in order. */
  tokenIds: [
    'BzcDq6fPX9HJRdUFvUSrGc4pNo66Y7ToaDnQzYAw6mC3',
    'Fse96iLHW1E5oVPYCtvk6594AayqTya7QmN8NSuhZ69',
    'G2E3WRhqGokAjoQq9CcNxNta3qbbzNsXbE8N4gq3cAPU',
    '4vJ9JU1bJJE96FWSJKvHsmmFADCg4gpZQff4P3bkLKi',
  ],
  /**
   * The HASH160 test_identity_read_by_key looks the identity up by: its first key's. The keys of
   * that genesis test identity come from a seeded RNG (rs-drive-abci's create_sdk_test_data), not
   * from any BIP39 seed, so no wallet derives it.
   */
  identityKeyHash: '9b38c6edbaf06d13f1ef76d1b723c4bc8eaebb20',
  /** The token ids test_direct_prices_tokens_ok asks the prices of, in order (session local_6). */
  pricedTokenIds: [
    'BzcDq6fPX9HJRdUFvUSrGc4pNo66Y7ToaDnQzYAw6mC3',
    'Fse96iLHW1E5oVPYCtvk6594AayqTya7QmN8NSuhZ69',
    'G2E3WRhqGokAjoQq9CcNxNta3qbbzNsXbE8N4gq3cAPU',
  ],
} as const;

/** A doctored answer, for a negative control: each must make the SDK refuse. */
export type Tamper =
  | 'flip-signature-bit'
  | 'flip-proof-byte'
  | 'wrong-quorum-key'
  /** Every request answered with another recorded request's answer (of those replayed). */
  | 'other-response';

type Method = { method: string; request: string; response: string };
const rpc = (name: string): Method => ({
  method: name.charAt(0).toLowerCase() + name.slice(1),
  request: `${name}Request`,
  response: `${name}Response`,
});

/**
 * The gRPC method each recorded request type is sent to; for a type that wraps several requests
 * in an SDK enum (`IdentityRequest`: `{"GetIdentity": …}`, `{"GetIdentityByPublicKeyHash": …}`),
 * by the variant.
 */
const WRAPPED: Readonly<Record<string, Method>> = {
  GetIdentity: rpc('GetIdentity'),
  GetIdentityByPublicKeyHash: rpc('GetIdentityByPublicKeyHash'),
};
const METHODS: Readonly<Record<string, Method>> = {
  GetEpochsInfoRequest: rpc('GetEpochsInfo'),
  GetTokenStatusesRequest: rpc('GetTokenStatuses'),
  GetTokenTotalSupplyRequest: rpc('GetTokenTotalSupply'),
  GetTokenDirectPurchasePricesRequest: rpc('GetTokenDirectPurchasePrices'),
  GetIdentityBalanceRequest: {
    method: 'getIdentityBalance',
    request: 'GetIdentityBalanceRequest',
    response: 'GetIdentityBalanceResponse',
  },
  GetDataContractRequest: {
    method: 'getDataContract',
    request: 'GetDataContractRequest',
    response: 'GetDataContractResponse',
  },
  GetIdentityTokenBalancesRequest: {
    method: 'getIdentityTokenBalances',
    request: 'GetIdentityTokenBalancesRequest',
    response: 'GetIdentityTokenBalancesResponse',
  },
  DocumentQuery: { method: 'getDocuments', request: 'GetDocumentsRequest', response: 'GetDocumentsResponse' },
};

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

type Recorded = {
  file: string;
  method: string;
  /** The exact request bytes, or, for documents, the decoded query they must equal. */
  match: { kind: 'bytes'; bytes: Buffer } | { kind: 'documents'; query: DocumentsQueryKey };
  response: Buffer;
  /** The response's fields, for tampering. */
  responseObject: JsonObject;
  responseType: string;
  timeMs: number;
  coreHeight: number;
};

type DocumentsQueryKey = string;

let platformRoot: Protobuf.Root | undefined;
function root(): Protobuf.Root {
  platformRoot ??= new protobuf.Root().loadSync(PROTO, { keepCase: true });
  return platformRoot;
}

/**
 * A serde JSON value of a prost message as protobufjs' object form: a oneof is `{ oneof: {
 * variant: value } }` in serde and the variant's own field in protobuf; bytes are arrays of
 * numbers; u64 are strings (protobufjs takes them as they are).
 */
function fromSerde(type: Protobuf.Type, json: JsonObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    if (type.oneofs?.[key]) {
      const entries = Object.entries(value as JsonObject);
      if (entries.length !== 1) throw new Error(`oneof ${type.name}.${key} has ${entries.length} variants`);
      Object.assign(out, fromSerde(type, Object.fromEntries(entries)));
      continue;
    }
    const field = type.fields[key];
    if (!field) throw new Error(`the vector has a field ${type.name}.${key} the .proto files do not know`);
    field.resolve();
    const one = (item: Json): unknown => {
      // A google.protobuf wrapper (`UInt32Value`…) is a bare value in serde: `"start_epoch": 185`.
      if (field.resolvedType instanceof protobuf.Type && typeof item !== 'object') {
        return fromSerde(field.resolvedType, { value: item });
      }
      if (field.resolvedType instanceof protobuf.Type) return fromSerde(field.resolvedType, item as JsonObject);
      if (field.type === 'bytes') return Buffer.from(item as number[]);
      return item;
    };
    if (value === null) continue;
    // proto3 leaves a field at its default off the wire (prost does; protobufjs writes what it is given).
    const isDefault = value === false || value === 0 || value === '' || (Array.isArray(value) && value.length === 0);
    const scalar = !field.partOf && !(field.resolvedType instanceof protobuf.Type);
    if (scalar && (isDefault || (value === '0' && /int64|fixed64/.test(field.type)))) continue;
    out[key] = field.repeated ? (value as Json[]).map(one) : one(value);
  }
  return out;
}

function encode(typeName: string, json: JsonObject): Buffer {
  const type = root().lookupType(PACKAGE + typeName);
  return Buffer.from(type.encode(type.fromObject(fromSerde(type, json))).finish());
}

/** A vector file's request and response (serde JSON each), split at the recorded `\n\0\n`. */
function readVector(path: string): { request: JsonObject; response: JsonObject } {
  const raw = readFileSync(path);
  const cut = raw.indexOf(Buffer.from('\n\0\n'));
  if (cut < 0) throw new Error(`${path} is not a recorded vector`);
  const outcome = JSON.parse(raw.subarray(cut + 3).toString('utf8')) as { Ok?: number[] };
  if (!outcome.Ok) throw new Error(`${path} records an error, which this harness does not replay`);
  return {
    request: JSON.parse(raw.subarray(0, cut).toString('utf8')) as JsonObject,
    response: JSON.parse(Buffer.from(outcome.Ok).toString('utf8')) as JsonObject,
  };
}

/** The SDK enum some recordings wrap a message in (`{"GetIdentity": {…}}`), unwrapped. */
function unwrapped(json: JsonObject): JsonObject {
  const keys = Object.keys(json);
  const only = keys[0];
  return keys.length === 1 && only !== undefined && /^[A-Z]/.test(only) ? (json[only] as JsonObject) : json;
}

const OPERATORS: Readonly<Record<string, string>> = {
  Equal: '==',
  GreaterThan: '>',
  GreaterThanOrEquals: '>=',
  LessThan: '<',
  LessThanOrEquals: '<=',
  In: 'in',
  StartsWith: 'startsWith',
};

/** A documents query reduced to what both sides say: canonical JSON of its decoded fields. */
function documentsKey(query: {
  contractId: string;
  documentType: string;
  where: unknown[];
  orderBy: unknown[];
  limit: number;
  startAfter: string | null;
  startAt: string | null;
}): DocumentsQueryKey {
  return JSON.stringify(query);
}

/** The recorded SDK-level `DocumentQuery` as the fields a wire request must carry. */
function recordedDocumentsKey(request: JsonObject): DocumentsQueryKey {
  const contract = request['data_contract'] as JsonObject;
  const start = request['start'] as JsonObject | null;
  return documentsKey({
    contractId: String(contract['id']),
    documentType: String(request['document_type_name']),
    where: (request['where_clauses'] as JsonObject[]).map((clause) => [
      clause['field'],
      OPERATORS[String(clause['operator'])] ?? clause['operator'],
      clause['value'],
    ]),
    orderBy: (request['order_by_clauses'] as JsonObject[]).map((clause) => [
      clause['field'],
      clause['ascending'] === false ? 'desc' : 'asc',
    ]),
    limit: Number(request['limit']),
    startAfter: start && 'StartAfter' in start ? base58.encode(Uint8Array.from(start['StartAfter'] as number[])) : null,
    startAt: start && 'StartAt' in start ? base58.encode(Uint8Array.from(start['StartAt'] as number[])) : null,
  });
}

/** The fields of a protobuf message on the wire, in order: number and value (bytes or varint). */
function wireFields(bytes: Uint8Array): [number, Uint8Array | number][] {
  const reader = protobuf.Reader.create(bytes);
  const fields: [number, Uint8Array | number][] = [];
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    const wireType = tag & 7;
    if (wireType === 2) fields.push([tag >>> 3, reader.bytes()]);
    else if (wireType === 0) fields.push([tag >>> 3, reader.uint32()]);
    else throw new Error(`wire type ${wireType} is not expected in a documents request`);
  }
  return fields;
}

const text = (value: Uint8Array | number | undefined) =>
  value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : undefined;

/**
 * A where clause of the 4.1.0 SDK's `GetDocumentsRequest` v1, read off the wire (the recording
 * predates v1, and dapi-grpc 3.0.1 has no .proto for it): `{ 1: field, 2: operator (0 is
 * equality), 3: value { 5: text } }`, as the SDK sends `['$id', '==', '<base58>']`. Anything else
 * is refused, so a request this harness cannot read never matches.
 */
function v1WhereClause(bytes: Uint8Array): unknown[] {
  const fields = new Map(wireFields(bytes));
  const operator = fields.get(2) ?? 0;
  const value = fields.get(3);
  const valueFields = value instanceof Uint8Array ? wireFields(value) : [];
  const [only] = valueFields;
  if (operator !== 0 || valueFields.length !== 1 || only?.[0] !== 5) {
    throw new Error(`a v1 where clause this harness cannot read: ${Buffer.from(bytes).toString('hex')}`);
  }
  return [text(fields.get(1)), '==', text(only[1])];
}

/**
 * A `GetDocumentsRequest` off the wire, as the recording's fields: v0 (`version` field 1: where
 * and order by CBOR) or the 4.1.0 SDK's v1 (field 2: contract id 1, type 2, where clauses 3 as
 * messages, order by 4, limit 5, start after 6, start at 7, prove 8), identifiers in base58 as the
 * recording writes them. Unknown non-empty fields make it unreadable: no match.
 */
function wireDocumentsKey(body: Uint8Array): DocumentsQueryKey | undefined {
  const top = new Map(wireFields(body));
  const v1 = top.get(2);
  const versioned = v1 ?? top.get(1);
  if (!(versioned instanceof Uint8Array)) return undefined;
  const fields = wireFields(versioned);
  const all = (n: number) => fields.filter(([number]) => number === n).map(([, value]) => value);
  const one = (n: number) => all(n).at(-1);
  const bytesOf = (n: number) => {
    const value = one(n);
    return value instanceof Uint8Array ? value : undefined;
  };
  const contract = bytesOf(1);
  const type = text(one(2));
  if (!contract || type === undefined || one(8) !== 1) return undefined;
  if (fields.some(([n, value]) => n > 9 || (n === 9 && !(value instanceof Uint8Array && value.length === 0)))) {
    return undefined;
  }
  const cborList = (n: number): unknown[] => {
    const value = bytesOf(n);
    if (!value || value.length === 0) return [];
    const decoded = decodeCbor(value);
    if (!Array.isArray(decoded)) throw new Error(`field ${n} decodes to ${JSON.stringify(decoded)}, not a list`);
    return decoded;
  };
  const identifiers = (value: unknown): unknown =>
    value instanceof Uint8Array && value.length === 32
      ? base58.encode(value)
      : Array.isArray(value)
        ? value.map(identifiers)
        : value;
  const start = (n: number) => {
    const value = bytesOf(n);
    return value ? base58.encode(value) : null;
  };
  if (v1 && all(4).length > 0) return undefined;
  const limit = one(5);
  return documentsKey({
    contractId: base58.encode(contract),
    documentType: type,
    where: v1 ? all(3).map((clause) => v1WhereClause(clause as Uint8Array)) : cborList(3).map(identifiers),
    orderBy: v1 ? [] : cborList(4),
    limit: typeof limit === 'number' ? limit : 0,
    startAfter: start(6),
    startAt: start(7),
  });
}

/** Enough CBOR (RFC 8949) for where and order-by clauses: integers, bytes, text, arrays, maps, simple values. */
function decodeCbor(bytes: Uint8Array): unknown {
  let at = 0;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = (info: number): number => {
    if (info < 24) return info;
    const size = 1 << (info - 24);
    const value =
      size === 1
        ? view.getUint8(at)
        : size === 2
          ? view.getUint16(at)
          : size === 4
            ? view.getUint32(at)
            : Number(view.getBigUint64(at));
    at += size;
    return value;
  };
  const item = (): unknown => {
    const head = view.getUint8(at++);
    const major = head >> 5;
    const info = head & 31;
    if (major === 7) {
      if (info === 20) return false;
      if (info === 21) return true;
      if (info === 22) return null;
      if (info === 27) {
        const value = view.getFloat64(at);
        at += 8;
        return value;
      }
      throw new Error(`CBOR simple value ${info} is not expected in a query`);
    }
    const n = length(info);
    switch (major) {
      case 0:
        return n;
      case 1:
        return -1 - n;
      case 2:
        at += n;
        return bytes.slice(at - n, at);
      case 3:
        at += n;
        return Buffer.from(bytes.subarray(at - n, at)).toString('utf8');
      case 4:
        return Array.from({ length: n }, item);
      case 5:
        return Object.fromEntries(Array.from({ length: n }, () => [String(item()), item()]));
      default:
        throw new Error(`CBOR major type ${major} is not expected in a query`);
    }
  };
  return item();
}

function loadVector(folder: string, file: string): Recorded {
  const type = /^msg_([A-Za-z]+)_[0-9a-f]{64}\.json$/.exec(file)?.[1];
  const { request, response } = readVector(join(VECTORS_DIR, folder, file));
  const kind = type === 'IdentityRequest' ? WRAPPED[Object.keys(request)[0] ?? ''] : METHODS[type ?? ''];
  if (!type || !kind) throw new Error(`${folder}/${file}: no gRPC method known for this request type`);
  const responseObject = unwrapped(response);
  const v0 = Object.values(responseObject['version'] as JsonObject)[0] as JsonObject;
  const meta = v0['metadata'] as JsonObject;
  return {
    file: `${folder}/${file}`,
    method: kind.method,
    match:
      type === 'DocumentQuery'
        ? { kind: 'documents', query: recordedDocumentsKey(request) }
        : { kind: 'bytes', bytes: encode(kind.request, unwrapped(request)) },
    response: encode(kind.response, responseObject),
    responseObject,
    responseType: kind.response,
    timeMs: Number(meta['time_ms']),
    coreHeight: Number(meta['core_chain_locked_height']),
  };
}

/** The recorded quorum keys: hash → BLS public key (hex), of every folder. */
function quorumKeys(): Map<string, string> {
  const keys = new Map<string, string>();
  for (const folder of readdirSync(VECTORS_DIR, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    for (const file of readdirSync(join(VECTORS_DIR, folder.name))) {
      const hash = /^quorum_pubkey-\d+-([0-9a-f]{64})\.json$/.exec(file)?.[1];
      if (hash) keys.set(hash, readFileSync(join(VECTORS_DIR, folder.name, file), 'utf8').trim());
    }
  }
  return keys;
}

/** The response with one bit flipped in its proof's signature or GroveDB proof, re-encoded. */
function doctored(vector: Recorded, field: 'signature' | 'grovedb_proof'): Buffer {
  const copy = structuredClone(vector.responseObject);
  const v0 = Object.values(copy['version'] as JsonObject)[0] as JsonObject;
  const proof = (v0['result'] as JsonObject)['proof'] as JsonObject;
  const bytes = proof[field] as number[];
  const at = field === 'signature' ? 10 : Math.floor(bytes.length / 2);
  bytes[at] = (bytes[at] ?? 0) ^ (field === 'signature' ? 0x01 : 0xff);
  return encode(vector.responseType, copy);
}

export type FakeDapi = {
  /** The DAPI's base URL, `http://127.0.0.1:<port>` (also the quorum service's). */
  url: string;
  /** The recording's time (its first answer's `time_ms`): the client's clock must read it. */
  timeMs: number;
  /** Each request answered, as `<method> <vector file>`. */
  answered: string[];
  /** Each request that matched no recorded one, as `<method> <hex of its first bytes>`. */
  unmatched: string[];
  close(): Promise<void>;
};

function grpcFrame(flag: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head[0] = flag;
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

function grpcAnswer(res: ServerResponse, payload: Buffer | undefined, status = 0, message = ''): void {
  res.writeHead(200, {
    'content-type': 'application/grpc-web+proto',
    'access-control-allow-origin': '*',
    'access-control-expose-headers': 'grpc-status,grpc-message',
  });
  const trailer = grpcFrame(
    0x80,
    Buffer.from(`grpc-status:${status}\r\ngrpc-message:${encodeURIComponent(message)}\r\n`),
  );
  res.end(payload ? Buffer.concat([grpcFrame(0, payload), trailer]) : trailer);
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * Starts the fake DAPI and quorum service on a free loopback port, replaying the folders named
 * (all of one recording session: the SDK refuses an answer below a height it has seen).
 *
 * @example
 * const dapi = await startFakeDapi(['identity', 'identityBalance']);
 * // config.json: platform.networks.local = { dapi_addresses: [dapi.url], quorum_url: dapi.url }
 */
export async function startFakeDapi(names: readonly VectorName[], tamper?: Tamper): Promise<FakeDapi> {
  const vectors = names.flatMap((name) =>
    readdirSync(join(VECTORS_DIR, VECTORS[name]))
      .filter((file) => file.startsWith('msg_') && !(name === 'documentById' && file.includes('GetDataContract')))
      .map((file) => loadVector(VECTORS[name], file)),
  );
  const first = vectors[0];
  if (!first) throw new Error('no vectors to replay');
  const keys = quorumKeys();
  const answered: string[] = [];
  const unmatched: string[] = [];
  let port = 0;
  const quorums = () =>
    [...keys.entries()].map(([hash, key], index, all) => ({
      quorum_hash: hash,
      // Another recorded quorum's key under this hash: its signatures must not verify.
      key: tamper === 'wrong-quorum-key' ? (all[(index + 1) % all.length]?.[1] ?? key) : key,
      height: Math.max(...vectors.map((vector) => vector.coreHeight)),
      valid_members_count: 3,
    }));
  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const path = req.url ?? '';
      const json = (data: unknown) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ success: true, data }));
      };
      if (req.method === 'GET' && path.startsWith('/quorums')) return json(quorums());
      if (req.method === 'GET' && path.startsWith('/previous')) {
        return json({ height: Math.max(...vectors.map((vector) => vector.coreHeight)), quorums: quorums() });
      }
      if (req.method === 'GET' && path.startsWith('/masternodes')) {
        return json([
          { address: `127.0.0.1:${port}`, status: 'ENABLED', versionCheck: 'success', platformHTTPPort: port },
        ]);
      }
      const method = /\/org\.dash\.platform\.dapi\.v0\.Platform\/(\w+)$/.exec(path)?.[1];
      const message = body.subarray(5);
      const found = vectors.find(
        (vector) =>
          vector.method === method &&
          (vector.match.kind === 'bytes'
            ? vector.match.bytes.equals(message)
            : vector.match.query === wireDocumentsKey(message)),
      );
      if (!found) {
        unmatched.push(`${method ?? path} ${message.subarray(0, 48).toString('hex')}`);
        return grpcAnswer(res, undefined, 5, 'no recorded answer for this request');
      }
      answered.push(`${found.method} ${found.file}`);
      if (tamper === 'flip-signature-bit') return grpcAnswer(res, doctored(found, 'signature'));
      if (tamper === 'flip-proof-byte') return grpcAnswer(res, doctored(found, 'grovedb_proof'));
      if (tamper === 'other-response') {
        const other = vectors.find((vector) => vector !== found);
        if (!other) throw new Error("'other-response' needs two vectors");
        return grpcAnswer(res, other.response);
      }
      return grpcAnswer(res, found.response);
    })().catch((error: unknown) => {
      unmatched.push(`harness failure: ${String(error)}`);
      res.destroy();
    });
  });
  port = await listenOnFreePort(server);
  return {
    url: `http://127.0.0.1:${port}`,
    timeMs: first.timeMs,
    answered,
    unmatched,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Why the Dash Platform SDK cannot run on this machine (its module or its wasm fails to load),
 * said loudly on stderr; undefined when it can. Tests of the real SDK skip with this reason,
 * never silently.
 */
export async function platformSdkProblem(): Promise<string | undefined> {
  try {
    const { EvoSDK } = await import('@dashevo/evo-sdk');
    await EvoSDK.getLatestVersionNumber();
    return undefined;
  } catch (error) {
    const problem = `the Dash Platform SDK does not load here (${String(error).slice(0, 200)})`;
    console.error(`\n!!! SKIPPING the Dash Platform tests: ${problem}.\n`);
    return problem;
  }
}

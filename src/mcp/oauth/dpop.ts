import { createHash, webcrypto } from 'node:crypto';
import { DpopSession, generateDpopKeyPair, type DpopKeyPair } from '@modelcontextprotocol/client';
import type { OAuthRecord, OAuthStore } from './store.js';

/** The DPoP key of a login: an EC P-256 private key as a JWK, kept with the tokens it binds. */
export type DpopKey = { kty: 'EC'; crv: 'P-256'; x: string; y: string; d: string };

const ALG = 'ES256';
const CURVE = { name: 'ECDSA', namedCurve: 'P-256' } as const;

/** One session per login and process, so the nonces a server hands out are remembered (RFC 9449 §8). */
const sessions = new Map<string, Promise<DpopSession>>();

/**
 * The DPoP session of a login (RFC 9449, SEP-1932): with the key the tokens are bound to whenever
 * the login has one (whatever the cached discovery says now), else with a new key where the
 * authorization server offers DPoP with ES256. The key is made once per login, under the login's
 * lock (a second process adopts the first one's), and kept in its owner-only file like the
 * refresh token: a later process must sign with the key the tokens are bound to.
 */
export async function dpopSession(store: OAuthStore): Promise<DpopSession | undefined> {
  const record = await store.read();
  let key = record.dpopKey;
  if (key === undefined) {
    if (!offersDpop(record)) return undefined;
    const fresh = await newKey();
    key = (await store.update((current) => (current.dpopKey ? current : { ...current, dpopKey: fresh }))).dpopKey;
  }
  if (key === undefined) return undefined;
  const id = `${store.path}#${key.x}`;
  let session = sessions.get(id);
  if (session === undefined) {
    session = importKey(key).then((keyPair) => DpopSession.create({ keyPair }));
    sessions.set(id, session);
  }
  return session;
}

/** Whether the authorization server's metadata lists ES256 for DPoP proofs. */
function offersDpop(record: OAuthRecord): boolean {
  const metadata = record.discovery?.authorizationServerMetadata;
  const algs =
    metadata && 'dpop_signing_alg_values_supported' in metadata
      ? metadata.dpop_signing_alg_values_supported
      : undefined;
  return algs?.includes(ALG) === true;
}

async function newKey(): Promise<DpopKey> {
  const { privateKey } = await generateDpopKeyPair({ alg: ALG, extractable: true });
  const { x, y, d } = await webcrypto.subtle.exportKey('jwk', privateKey);
  if (!x || !y || !d) throw new Error('the DPoP key could not be exported');
  return { kty: 'EC', crv: 'P-256', x, y, d };
}

/** The stored key as the SDK's key pair, its private half no longer exportable. */
async function importKey(key: DpopKey): Promise<DpopKeyPair> {
  const publicJwk = { kty: key.kty, crv: key.crv, x: key.x, y: key.y };
  const [privateKey, publicKey] = await Promise.all([
    webcrypto.subtle.importKey('jwk', key, CURVE, false, ['sign']),
    webcrypto.subtle.importKey('jwk', publicJwk, CURVE, true, ['verify']),
  ]);
  // RFC 7638: the required members in lexicographic order, no whitespace.
  const canonical = JSON.stringify({ crv: key.crv, kty: key.kty, x: key.x, y: key.y });
  const thumbprint = createHash('sha256').update(canonical).digest('base64url');
  return { privateKey, publicKey, publicJwk, thumbprint, alg: ALG };
}

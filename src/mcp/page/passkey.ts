import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { isoBase64URL } from '@simplewebauthn/server/helpers';
import { z } from 'zod';
import { WalletError } from '../../domain/errors.js';
import type { Approval } from '../../domain/policy/approvals.js';
import type { Passkey } from '../../domain/policy/passkeys.js';

/** Where the ceremonies happen: the relying party's id and the origin the browser names. */
export type RelyingParty = { id: string; origin: string };

/** How long a ceremony's challenge may wait for the browser's answer. */
export const CHALLENGE_TTL_MS = 10 * 60_000;
const TIMEOUT_MS = 5 * 60_000;

/**
 * The relying party of a page served at `served`. WebAuthn takes no IP address as a relying party
 * id, so a page on 127.0.0.1 does its ceremonies at `localhost` (the same listener, a secure
 * context in every browser).
 */
export function relyingPartyOf(served: URL): RelyingParty {
  const loopbackIp = served.hostname === '127.0.0.1' || served.hostname === '[::1]';
  const host = loopbackIp ? 'localhost' : served.hostname;
  return { id: host, origin: `${served.protocol}//${host}${served.port ? `:${served.port}` : ''}` };
}

/**
 * The challenge of a passkey yes to `approval`: 16 random bytes, then a hash of the approval's id
 * and the digest of its exact call. The authenticator signs it, so an assertion says yes to this
 * approval of this call, and the random part makes each one usable once.
 */
export function approvalChallenge(approval: Approval): string {
  return isoBase64URL.fromBuffer(Buffer.concat([randomBytes(16), binding(approval)]));
}

/** Whether `challenge` was made by {@link approvalChallenge} for this approval and call. */
export function bindsApproval(challenge: string, approval: Approval): boolean {
  if (!isoBase64URL.isBase64URL(challenge)) return false;
  const bytes = Buffer.from(isoBase64URL.toBuffer(challenge));
  const expected = binding(approval);
  return bytes.length === 16 + expected.length && timingSafeEqual(bytes.subarray(16), expected);
}

function binding(approval: Approval): Buffer {
  return createHash('sha256').update(`wallet approval\0${approval.id}\0${approval.digest}`).digest();
}

/** The options of a new passkey's registration: user verification required, no attestation kept. */
export async function registrationOptions(
  rp: RelyingParty,
  name: string,
  enrolled: readonly Passkey[],
): Promise<{ options: unknown; challenge: string }> {
  const options = await generateRegistrationOptions({
    rpName: 'wallet approvals',
    rpID: rp.id,
    userName: `wallet owner (${name})`,
    attestationType: 'none',
    timeout: TIMEOUT_MS,
    excludeCredentials: enrolled.map((passkey) => ({ id: passkey.id })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
  });
  return { options, challenge: options.challenge };
}

/** The passkey a registration response enrolls, verified (user verified, this origin, this challenge). */
export async function verifyRegistration(
  rp: RelyingParty,
  credential: string | null,
  challenge: string,
  name: string,
): Promise<Passkey> {
  const response = parseCredential(credential, RegistrationResponseSchema) as RegistrationResponseJSON;
  const verified = await verifyRegistrationResponse({
    response,
    expectedChallenge: challenge,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: true,
  }).catch((error: unknown) => {
    throw refusal('The passkey registration did not verify', error);
  });
  if (!verified.verified) throw refusal('The passkey registration did not verify');
  const { credential: made } = verified.registrationInfo;
  return {
    id: made.id,
    name,
    public_key: isoBase64URL.fromBuffer(made.publicKey),
    counter: made.counter,
    ...(made.transports ? { transports: made.transports.slice(0, 8) } : {}),
    created: new Date().toISOString(),
  };
}

/** The options of a passkey yes: one of the enrolled passkeys, user verification required. */
export async function assertionOptions(
  rp: RelyingParty,
  enrolled: readonly Passkey[],
  challenge: string,
): Promise<unknown> {
  return generateAuthenticationOptions({
    rpID: rp.id,
    // Its bytes: a string would be taken as text and encoded again.
    challenge: isoBase64URL.toBuffer(challenge),
    timeout: TIMEOUT_MS,
    userVerification: 'required',
    allowCredentials: enrolled.map((passkey) => ({
      id: passkey.id,
      ...(passkey.transports ? { transports: passkey.transports as AuthenticatorTransportName[] } : {}),
    })),
  });
}

type AuthenticatorTransportName = 'ble' | 'cable' | 'hybrid' | 'internal' | 'nfc' | 'smart-card' | 'usb';

/**
 * Verifies a passkey yes: an assertion by an enrolled passkey, user verified, at this origin,
 * over a challenge `challengeOk` accepts. Returns the passkey and the counter it reported (the
 * caller records it, refusing one that did not move).
 */
export async function verifyAssertion(
  rp: RelyingParty,
  credential: string | null,
  enrolled: readonly Passkey[],
  challengeOk: (challenge: string) => boolean,
): Promise<{ passkey: Passkey; counter: number }> {
  const response = parseCredential(credential, AuthenticationResponseSchema) as AuthenticationResponseJSON;
  const passkey = enrolled.find((each) => each.id === response.id);
  if (!passkey) throw refusal('That passkey is not enrolled');
  const verified = await verifyAuthenticationResponse({
    response,
    expectedChallenge: challengeOk,
    expectedOrigin: rp.origin,
    expectedRPID: rp.id,
    requireUserVerification: true,
    // The counter is checked where it is recorded, under the passkeys' lock (PasskeyStore.recordUse),
    // which refuses one that did not move and names the likely clone.
    credential: { id: passkey.id, publicKey: isoBase64URL.toBuffer(passkey.public_key), counter: 0 },
  }).catch((error: unknown) => {
    throw refusal('The passkey answer did not verify', error);
  });
  if (!verified.verified || !verified.authenticationInfo.userVerified) {
    throw refusal('The passkey answer did not verify');
  }
  return { passkey, counter: verified.authenticationInfo.newCounter };
}

const B64 = z
  .string()
  .regex(/^[A-Za-z0-9_-]*$/)
  .max(8192);

/** What a browser's registration and authentication answers both carry (WebAuthn's PublicKeyCredential). */
const CredentialSchema = z.object({
  id: B64,
  rawId: B64,
  type: z.literal('public-key'),
  clientExtensionResults: z.record(z.string(), z.unknown()),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
});

const RegistrationResponseSchema = CredentialSchema.extend({
  response: z.object({
    clientDataJSON: B64,
    attestationObject: B64,
    transports: z.array(z.string().max(32)).max(8).optional(),
  }),
});

const AuthenticationResponseSchema = CredentialSchema.extend({
  response: z.object({
    clientDataJSON: B64,
    authenticatorData: B64,
    signature: B64,
    userHandle: B64.optional(),
  }),
});

function parseCredential(text: string | null, schema: z.ZodType): unknown {
  if (text === null || text === '') throw refusal('No passkey answer came with the form');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw refusal('The passkey answer is not JSON', error);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw refusal('The passkey answer is malformed', parsed.error);
  return parsed.data;
}

function refusal(what: string, cause?: unknown): WalletError {
  return new WalletError('POLICY_VIOLATION', `${what}; nothing was approved.`, {
    hint: 'Reload the page and try again with your enrolled passkey.',
    ...(cause === undefined ? {} : { cause }),
  });
}

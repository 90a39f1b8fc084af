/**
 * Platform identities, read by id with proofs verified by the SDK: balance (credits), revision and
 * public keys. An identity proved absent is `INVALID_PARAM` (nothing to show), not an empty answer.
 */
import type { EvoSDK } from '@dashevo/evo-sdk';
import { WalletError } from '../errors.js';
import type { PlatformNetwork } from './network.js';
import { platformRead } from './sdk.js';

type PlatformPublicKey = {
  id: number;
  type: string;
  purpose: string;
  securityLevel: string;
  readOnly: boolean;
  /** The key's data (a public key or its hash), as the SDK writes it. */
  data: string;
  /** When it was disabled (ms since the epoch); null while enabled. */
  disabledAt: bigint | null;
};

export type PlatformIdentity = {
  id: string;
  balanceCredits: bigint;
  revision: bigint;
  publicKeys: PlatformPublicKey[];
};

function absent(network: PlatformNetwork, id: string): WalletError {
  return new WalletError('INVALID_PARAM', `Platform ${network.network} has no identity ${id} (proved absent).`, {
    hint: 'Check the identity id (base58, 32 bytes) and the network.',
  });
}

type SdkIdentity = NonNullable<Awaited<ReturnType<EvoSDK['identities']['fetch']>>>;

function identityOf(identity: SdkIdentity): PlatformIdentity {
  return {
    id: identity.id.toBase58(),
    balanceCredits: BigInt(identity.balance),
    revision: BigInt(identity.revision),
    publicKeys: identity.publicKeys.map((key) => ({
      id: key.keyId,
      type: key.keyType,
      purpose: key.purpose,
      securityLevel: key.securityLevel,
      readOnly: key.isReadOnly,
      data: key.data,
      disabledAt: key.disabledAt ?? null,
    })),
  };
}

/** An identity by id (base58), proved. */
export async function fetchIdentity(network: PlatformNetwork, id: string): Promise<PlatformIdentity> {
  return platformRead(network, `identity ${id}`, async (sdk) => {
    const identity = await sdk.identities.fetch(id);
    if (!identity) throw absent(network, id);
    return identityOf(identity);
  });
}

/**
 * The identities that hold a unique public key of each HASH160 asked (40 hex digits), in the
 * order asked, proved; null where none does (proved absent). One request per hash.
 */
export async function fetchIdentitiesByKeyHashes(
  network: PlatformNetwork,
  keyHashes: readonly string[],
): Promise<(PlatformIdentity | null)[]> {
  const found: (PlatformIdentity | null)[] = [];
  for (const keyHash of keyHashes) {
    found.push(
      await platformRead(network, `the identity of public key hash ${keyHash}`, async (sdk) => {
        const identity = await sdk.identities.byPublicKeyHash(keyHash);
        return identity ? identityOf(identity) : null;
      }),
    );
  }
  return found;
}

/** An identity's balance in credits, proved. */
export async function fetchIdentityBalance(network: PlatformNetwork, id: string): Promise<bigint> {
  return platformRead(network, `the balance of identity ${id}`, async (sdk) => {
    const balance = await sdk.identities.balance(id);
    if (balance === undefined) throw absent(network, id);
    return balance;
  });
}

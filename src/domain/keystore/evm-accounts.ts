import { existsSync } from 'node:fs';
import { ensurePrivateDir, writeFileAtomic } from '../../shared/private-files.js';
import { WalletError } from '../errors.js';
import { importedKeyPath, serialize, walletPath } from './files.js';
import type { ImportedKeyEntry } from './imported-keys.js';
import { RESTORE } from './keystore-format.js';
import { listImportedKeys, listWallets } from './listing.js';
import { locked, updateWallet } from './locked.js';
import { checkAlias, MAX_ISSUED_ADDRESSES, type EvmAccountRecord, type WalletEntry } from './wallet-record.js';

// EVM accounts in the keystore: derived ones in their wallet's file, imported keys; no address or alias twice.

/**
 * Records the next EVM account of a wallet's seed (one past the highest index yet), storing the
 * chain xpub on first use. Under the lock, re-reading everything: no index or alias twice. An
 * index whose address the keystore already has (the same seed in a wallet of another Dash
 * network, or an imported key) is skipped, not handed out twice.
 */
export async function addEvmAccount(
  dir: string,
  entry: WalletEntry,
  request: EvmAccountRequest,
): Promise<{ entry: WalletEntry; account: EvmAccountRecord }> {
  if (request.alias !== null) checkAlias(request.alias);
  const { entry: next, result } = await updateWallet(dir, entry, async (current) =>
    withEvmAccount(current, await knownEvmAccounts(dir), request, `keystore file ${walletPath(dir, current)}`),
  );
  return { entry: next, account: result };
}

/** What a new EVM account of a wallet's seed needs: the chain xpub, an alias, the address at an index. */
export type EvmAccountRequest = {
  xpub: string;
  alias: string | null;
  addressAt: (xpub: string, index: number) => string;
};

/**
 * `current` with its next EVM account recorded, given every account the keystore knows (`known`):
 * one past its highest index, skipping an index whose address another holder has; `where` names
 * the record (`keystore file <path>`, a row of the store) when its chain xpub turns out damaged.
 */
export function withEvmAccount(
  current: WalletEntry,
  known: readonly KnownEvmAccount[],
  request: EvmAccountRequest,
  where: string,
): { next: WalletEntry; result: EvmAccountRecord } {
  const evm = current.evm ?? { xpub: request.xpub, accounts: [] };
  checkEvmAliasFree(known, request.alias);
  const addressAt = (at: number): string => {
    try {
      return request.addressAt(evm.xpub, at);
    } catch (error) {
      // The chain xpub read from the record (kept in clear) was edited in: the record is named.
      if (current.evm && error instanceof WalletError && error.code === 'KEYSTORE_DAMAGED') {
        throw new WalletError(
          'KEYSTORE_DAMAGED',
          `The ${where} holds an EVM chain xpub that is not a chain's extended public key.`,
          { ...RESTORE, cause: error },
        );
      }
      throw error;
    }
  };
  let index = evm.accounts.reduce((highest, account) => Math.max(highest, account.index + 1), 0);
  while (index < MAX_ISSUED_ADDRESSES && known.some((other) => sameAddress(other.address, addressAt(index)))) {
    index += 1;
  }
  if (index >= MAX_ISSUED_ADDRESSES) {
    throw new WalletError(
      'INVALID_PARAM',
      `Wallet '${current.alias}' has reached EVM account ${MAX_ISSUED_ADDRESSES}, the most one wallet issues.`,
      { hint: 'Use an account the wallet already has (evm_accounts_list), or create another wallet.' },
    );
  }
  const account = { index, address: addressAt(index), alias: request.alias };
  return { next: { ...current, evm: { ...evm, accounts: [...evm.accounts, account] } }, result: account };
}

/** Stores a sealed imported key; refuses an address or alias the keystore already has. */
export async function addImportedKey(dir: string, key: ImportedKeyEntry): Promise<void> {
  if (key.alias !== null) checkAlias(key.alias);
  ensurePrivateDir(dir);
  await locked(dir, async () => {
    checkImportedKeyFree(await knownEvmAccounts(dir), key);
    const path = importedKeyPath(dir, key);
    // A file of that name that could not be read (so is not listed) is never overwritten.
    if (existsSync(path)) {
      throw new WalletError('INVALID_PARAM', `${path} exists but cannot be read; nothing was imported.`, {
        hint: 'Move the damaged file away first.',
      });
    }
    writeFileAtomic(path, serialize(key));
  });
}

/** Refuses an imported key whose address or alias the keystore already has. */
export function checkImportedKeyFree(known: readonly KnownEvmAccount[], key: ImportedKeyEntry): void {
  const same = known.find((other) => sameAddress(other.address, key.address));
  if (same) throw new WalletError('INVALID_PARAM', `${same.address} is already in the keystore as ${same.owner}.`);
  checkEvmAliasFree(known, key.alias);
}

export type KnownEvmAccount = { address: string; alias: string | null; owner: string };

/** Every EVM account of the keystore, with who holds it, for uniqueness checks. */
async function knownEvmAccounts(dir: string): Promise<KnownEvmAccount[]> {
  const { entries } = await listWallets(dir);
  const { keys } = await listImportedKeys(dir);
  return knownEvmAccountsOf(entries, keys);
}

/** Every EVM account of these wallets and imported keys, with who holds it. */
export function knownEvmAccountsOf(
  entries: readonly WalletEntry[],
  keys: readonly ImportedKeyEntry[],
): KnownEvmAccount[] {
  return [
    ...entries.flatMap((wallet) =>
      (wallet.evm?.accounts ?? []).map((other) => ({
        address: other.address,
        alias: other.alias,
        owner: `account ${other.index} of wallet '${wallet.alias}'`,
      })),
    ),
    ...keys.map((key) => ({ address: key.address, alias: key.alias, owner: 'an imported key' })),
  ];
}

function sameAddress(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function checkEvmAliasFree(known: readonly KnownEvmAccount[], alias: string | null): void {
  const taken = alias === null ? undefined : known.find((other) => other.alias === alias);
  if (taken) {
    throw new WalletError('INVALID_PARAM', `alias '${alias ?? ''}' is taken by ${taken.address}.`, {
      hint: 'Choose another alias.',
    });
  }
}

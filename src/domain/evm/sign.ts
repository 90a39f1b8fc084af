import { keccak256, type Hex, type TransactionSerializable } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { WalletError } from '../errors.js';
import {
  checkBeforeSigning,
  reserveSpend,
  type LedgerSpend,
  type Reservation,
  type SpendingPolicy,
} from '../policy/spending-policy.js';
import { PLANNING, type Authority } from '../policy/authority.js';
import type { WalletServices } from '../services.js';
import { resolveAccount, type EvmAccount } from './accounts.js';
import { withAccountKey } from './keys.js';
import { checkChainId, evmNetwork, type EvmNetwork } from './network.js';
import { checkFeeCap, countedSpend, spendKey } from './spend.js';
import { checkSimulatedSpend, countedWhenSigning, simulateOn, simulatedCallOf, type AssetChanges } from './simulate.js';
import { describeSigned, maxFeeOf, readTransaction, type SignedTx } from './transaction.js';

/** What signing or sending a transaction would do, planned: the transaction read, and its simulation. */
export type TxPlanned = Omit<SignedTx, 'signed' | 'hash'> & { hash: SignedTx['hash'] | null; simulation: AssetChanges };

/**
 * Signs an unsigned transaction with a keystore account, after checking it is for the network
 * named (its chain id) and carries a chain id at all (no replayable pre-EIP-155 ones). Offline
 * without a policy; where the network has one, the transaction is first simulated on its node and
 * what that shows the signer's tokens do is checked and counted as {@link pay} does (the signed
 * transaction can go out through any node, so this is the last point to hold it to the caps).
 */
export async function signTransaction(
  services: WalletServices,
  request: { unsigned: string; from: string; network: string; maxFee: string | undefined; authority: Authority },
  signal?: AbortSignal,
): Promise<SignedTx> {
  const network = await evmNetwork(services, request.network);
  const transaction = readTransaction(request.unsigned, 'unsigned_tx');
  if (transaction.r !== undefined || transaction.s !== undefined) {
    throw new WalletError('INVALID_PARAM', 'unsigned_tx is already signed.', { hint: 'Send it with evm_tx_send.' });
  }
  checkChainId(transaction.chainId, network, 'The transaction');
  const account = await resolveAccount(services, request.from);
  const spend = {
    ...countedSpend(transaction),
    key: spendKey(account.address, transaction),
    authority: request.authority,
    fee: maxFeeOf(transaction),
  };
  await checkBeforeSigning(services.ledgers, network.policy, spend);
  checkFeeCap(maxFeeOf(transaction), request.maxFee, network.policy);
  const counted = await countedWhenSigning(
    services.ledgers,
    network.policy,
    spend,
    () => simulateOn(network, simulatedCallOf(account.address, transaction), signal),
    account.address,
  );
  const { value: signed } = await signReserved(services, account, transaction, network.policy, counted);
  return describeSigned(signed, account.address, transaction);
}

/**
 * The dry run of {@link signTransaction}: every check it makes, under the owner's rules (a plan
 * signs nothing), then what the transaction would do, simulated on the network's node (the only
 * part that is not offline; a node that cannot be reached "could not simulate"). Token moves the
 * simulation shows beyond the calldata are refused by the token caps as decoded ones are.
 */
export async function planSigning(
  services: WalletServices,
  request: { unsigned: string; from: string; network: string; maxFee: string | undefined },
  signal?: AbortSignal,
): Promise<TxPlanned> {
  const network = await evmNetwork(services, request.network);
  const transaction = readTransaction(request.unsigned, 'unsigned_tx');
  if (transaction.r !== undefined || transaction.s !== undefined) {
    throw new WalletError('INVALID_PARAM', 'unsigned_tx is already signed.', { hint: 'Send it with evm_tx_send.' });
  }
  checkChainId(transaction.chainId, network, 'The transaction');
  const counted = countedSpend(transaction);
  const account = await resolveAccount(services, request.from);
  const spend = {
    ...counted,
    key: spendKey(account.address, transaction),
    authority: PLANNING,
    fee: maxFeeOf(transaction),
  };
  await checkBeforeSigning(services.ledgers, network.policy, spend);
  checkFeeCap(maxFeeOf(transaction), request.maxFee, network.policy);
  return planned(services, network, account.address, transaction, spend, signal);
}

/** A transaction's plan: its simulation, and the policy's word on what the simulation shows. */
export async function planned(
  services: WalletServices,
  network: EvmNetwork,
  from: EvmAccount['address'],
  transaction: TransactionSerializable,
  spend: LedgerSpend,
  signal?: AbortSignal,
): Promise<TxPlanned> {
  const { hash: _hash, signed: _signed, ...described } = describeSigned('0x', from, transaction);
  const simulation = await simulateOn(network, simulatedCallOf(from, transaction), signal);
  await checkSimulatedSpend(services.ledgers, network.policy, spend, simulation, from, false);
  return { ...described, hash: null, simulation };
}

/**
 * Signs as a spend the network's 24-hour cap counts (see `reserveSpend`); without a cap, only
 * signs. The key is unlocked first, so the ledger's lock is never held through a slow unlock.
 */
export function signReserved(
  services: WalletServices,
  account: EvmAccount,
  transaction: TransactionSerializable,
  policy: SpendingPolicy | null,
  spend: LedgerSpend,
): Promise<Reservation<Hex>> {
  return withAccountKey(services, account, (privateKey) =>
    reserveSpend(services.ledgers, policy, spend, async () => {
      const signed = await privateKeyToAccount(privateKey).signTransaction(transaction);
      return { value: signed, txid: keccak256(signed) };
    }),
  );
}

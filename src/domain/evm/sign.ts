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
import type { Authority } from '../policy/authority.js';
import type { WalletServices } from '../services.js';
import { resolveAccount, type EvmAccount } from './accounts.js';
import { withAccountKey } from './keys.js';
import { checkChainId, evmNetwork } from './network.js';
import { checkFeeCap, countedSpend, spendKey } from './spend.js';
import { describeSigned, maxFeeOf, readTransaction, type SignedTx } from './transaction.js';

/**
 * Signs an unsigned transaction offline with a keystore account, after checking it is for the
 * network named (its chain id) and carries a chain id at all (no replayable pre-EIP-155 ones).
 */
export async function signTransaction(
  services: WalletServices,
  request: { unsigned: string; from: string; network: string; maxFee: string | undefined; authority: Authority },
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
  const { value: signed } = await signReserved(services, account, transaction, network.policy, spend);
  return describeSigned(signed, account.address, transaction);
}

/**
 * What signing or sending `hex` would refuse before any key or node is touched: a network that
 * does not exist, a transaction that does not decode or is for another chain, and a token call
 * whose arguments do not decode. `wallet serve` runs it before it asks anyone or files an approval,
 * so nobody is asked to approve a call bound to fail; the handler checks again.
 */
export async function checkTransactionBeforeAsking(
  services: WalletServices,
  request: { hex: string; field: 'unsigned_tx' | 'signed_tx'; network: string },
): Promise<void> {
  const network = await evmNetwork(services, request.network);
  const transaction = readTransaction(request.hex, request.field);
  checkChainId(transaction.chainId, network, 'The transaction');
  countedSpend(transaction);
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

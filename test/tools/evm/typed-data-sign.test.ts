/**
 * Signed token authorizations that work on chain: the test PermitToken (EIP-2612 permit and
 * EIP-3009 transfer / receive with authorization, test/fixtures/erc20/PermitToken.sol) deployed on
 * anvil; the holder's signatures made by evm_typed_data_sign through a real MCP client; ethers
 * checks them; other anvil accounts (unlocked, as a dapp or a relayer would be) submit them.
 * token-moves reads each document as the move the contract then makes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ethers } from 'ethers';
import type { Address, Hex } from 'viem';
import { tokenMovesOfTypedData, type TypedDataInput } from '../../../src/domain/evm/token-moves.js';
import { ANVIL_FIRST_ACCOUNT, ANVIL_MNEMONIC, startAnvil, type AnvilNode } from '../../helpers/anvil.js';
import { compilePermitToken, deployPermitToken, sendAndWait } from '../../helpers/erc20.js';
import { tempHome } from '../../helpers/io.js';
import { closeAnvilTest, serveAnvilWallet, type ToolCaller } from '../../helpers/mcp.js';

const PASSPHRASE = 'permit passphrase';
const oracleAccount = (index: number) =>
  ethers.HDNodeWallet.fromPhrase(ANVIL_MNEMONIC, undefined, `m/44'/60'/0'/0/${index}`);
const OWNER = ANVIL_FIRST_ACCOUNT;
/** A dapp or relayer: anvil's second account, unlocked in the node. */
const SPENDER = oracleAccount(1).address as Address;
const RECIPIENT = oracleAccount(3).address as Address;
const NAME = 'Permit Token';
/** Far in the future: anvil's clock starts now. */
const DEADLINE = '4102444800';

const DOMAIN_TYPE = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
];
const PERMIT_TYPE = [
  { name: 'owner', type: 'address' },
  { name: 'spender', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'nonce', type: 'uint256' },
  { name: 'deadline', type: 'uint256' },
];
const AUTHORIZATION_TYPE = [
  { name: 'from', type: 'address' },
  { name: 'to', type: 'address' },
  { name: 'value', type: 'uint256' },
  { name: 'validAfter', type: 'uint256' },
  { name: 'validBefore', type: 'uint256' },
  { name: 'nonce', type: 'bytes32' },
];

type Signed = { address: string; signature: string; hash: string };

describe('permits signed by evm_typed_data_sign work on chain (anvil, PermitToken)', () => {
  let node: AnvilNode;
  let home: string;
  let wallet: ToolCaller;
  let provider: ethers.JsonRpcProvider;
  let token: Address;
  let contract: ethers.Contract;
  let domain: { name: string; version: string; chainId: number; verifyingContract: Address };

  const read = async <T>(name: string, ...args: unknown[]): Promise<T> =>
    (await contract.getFunction(name).staticCall(...args)) as T;
  const submit = (from: Address, name: string, args: unknown[]) =>
    sendAndWait(node, { from, to: token, data: contract.interface.encodeFunctionData(name, args) as Hex });
  /** The holder signs through the wallet; ethers recovers the holder and agrees on the hash. */
  const sign = async (typed: TypedDataInput): Promise<ethers.Signature> => {
    const signed = await wallet.call<Signed>('evm_typed_data_sign', {
      address: 'holder',
      network: 'local',
      typed_data: typed,
    });
    const { EIP712Domain: _domain, ...types } = typed.types;
    const fields = types as Record<string, ethers.TypedDataField[]>;
    assert.equal(signed.hash, ethers.TypedDataEncoder.hash(domain, fields, typed.message));
    assert.equal(ethers.verifyTypedData(domain, fields, typed.message, signed.signature), OWNER);
    return ethers.Signature.from(signed.signature);
  };
  const authorization = (
    primaryType: 'TransferWithAuthorization' | 'ReceiveWithAuthorization',
    message: Record<string, unknown>,
  ): TypedDataInput => ({
    domain,
    types: { EIP712Domain: DOMAIN_TYPE, [primaryType]: AUTHORIZATION_TYPE },
    primaryType,
    message,
  });

  before(async () => {
    node = await startAnvil();
    provider = new ethers.JsonRpcProvider(node.url, 31337, { staticNetwork: true, cacheTimeout: -1 });
    token = ethers.getAddress(
      await deployPermitToken(node, { name: NAME, symbol: 'PTK', decimals: 6, supply: 10n ** 12n }),
    ) as Address;
    contract = new ethers.Contract(token, compilePermitToken().abi as ethers.InterfaceAbi, provider);
    domain = { name: NAME, version: '1', chainId: 31337, verifyingContract: token };
    home = tempHome();
    wallet = await serveAnvilWallet(home, node.url, PASSPHRASE, 'holder');
  });
  after(() => closeAnvilTest({ provider, wallet, node, home }));

  it("the token's DOMAIN_SEPARATOR is the EIP-712 domain ethers computes", async () => {
    assert.equal(await read<string>('DOMAIN_SEPARATOR'), ethers.TypedDataEncoder.hashDomain(domain));
  });

  it('EIP-2612: permit, then transferFrom by the spender moves the tokens; the permit is good once', async () => {
    const value = 2_500_000n;
    const typed: TypedDataInput = {
      domain,
      types: { EIP712Domain: DOMAIN_TYPE, Permit: PERMIT_TYPE },
      primaryType: 'Permit',
      message: {
        owner: OWNER,
        spender: SPENDER,
        value: value.toString(),
        nonce: (await read<bigint>('nonces', OWNER)).toString(),
        deadline: DEADLINE,
      },
    };
    assert.deepEqual(tokenMovesOfTypedData(typed), {
      recognised: true,
      chainId: 31337,
      moves: [{ kind: 'permit', token, counterparty: SPENDER, role: 'spender', amount: value, unlimited: false }],
    });
    const { v, r, s } = await sign(typed);
    const [ownerBefore, recipientBefore] = [
      await read<bigint>('balanceOf', OWNER),
      await read<bigint>('balanceOf', RECIPIENT),
    ];

    await submit(SPENDER, 'permit', [OWNER, SPENDER, value, DEADLINE, v, r, s]);
    assert.equal(await read<bigint>('allowance', OWNER, SPENDER), value);
    assert.equal(await read<bigint>('nonces', OWNER), 1n);
    await submit(SPENDER, 'transferFrom', [OWNER, RECIPIENT, value]);
    assert.equal(await read<bigint>('balanceOf', OWNER), ownerBefore - value);
    assert.equal(await read<bigint>('balanceOf', RECIPIENT), recipientBefore + value);
    assert.equal(await read<bigint>('allowance', OWNER, SPENDER), 0n);

    await assert.rejects(
      submit(SPENDER, 'permit', [OWNER, SPENDER, value, DEADLINE, v, r, s]),
      /invalid permit signature/,
    );
  });

  it('EIP-3009: a relayer submits transferWithAuthorization; the payee submits receiveWithAuthorization; each once', async () => {
    const value = 1_000_000n;
    const transfer = authorization('TransferWithAuthorization', {
      from: OWNER,
      to: RECIPIENT,
      value: value.toString(),
      validAfter: '0',
      validBefore: DEADLINE,
      nonce: ethers.id('x402 payment 1'),
    });
    assert.deepEqual(tokenMovesOfTypedData(transfer).moves, [
      {
        kind: 'transferWithAuthorization',
        token,
        counterparty: RECIPIENT,
        role: 'recipient',
        amount: value,
        unlimited: false,
      },
    ]);
    const signed = await sign(transfer);
    const args = [OWNER, RECIPIENT, value, 0, DEADLINE, ethers.id('x402 payment 1'), signed.v, signed.r, signed.s];
    const recipientBefore = await read<bigint>('balanceOf', RECIPIENT);
    await submit(SPENDER, 'transferWithAuthorization', args);
    assert.equal(await read<bigint>('balanceOf', RECIPIENT), recipientBefore + value);
    assert.equal(await read<boolean>('authorizationState', OWNER, ethers.id('x402 payment 1')), true);
    await assert.rejects(submit(SPENDER, 'transferWithAuthorization', args), /authorization already used/);

    const receive = authorization('ReceiveWithAuthorization', {
      from: OWNER,
      to: SPENDER,
      value: value.toString(),
      validAfter: '0',
      validBefore: DEADLINE,
      nonce: ethers.id('x402 payment 2'),
    });
    assert.equal(tokenMovesOfTypedData(receive).moves[0]?.kind, 'receiveWithAuthorization');
    const received = await sign(receive);
    const receiveArgs = [
      OWNER,
      SPENDER,
      value,
      0,
      DEADLINE,
      ethers.id('x402 payment 2'),
      received.v,
      received.r,
      received.s,
    ];
    await assert.rejects(submit(RECIPIENT, 'receiveWithAuthorization', receiveArgs), /caller must be the payee/);
    const spenderBefore = await read<bigint>('balanceOf', SPENDER);
    await submit(SPENDER, 'receiveWithAuthorization', receiveArgs);
    assert.equal(await read<bigint>('balanceOf', SPENDER), spenderBefore + value);
  });

  it('a signature over other values is refused by the contract: nothing moves', async () => {
    const typed = authorization('TransferWithAuthorization', {
      from: OWNER,
      to: RECIPIENT,
      value: '5',
      validAfter: '0',
      validBefore: DEADLINE,
      nonce: ethers.id('x402 payment 3'),
    });
    const { v, r, s } = await sign(typed);
    const before = await read<bigint>('balanceOf', RECIPIENT);
    await assert.rejects(
      submit(SPENDER, 'transferWithAuthorization', [
        OWNER,
        RECIPIENT,
        6n,
        0,
        DEADLINE,
        ethers.id('x402 payment 3'),
        v,
        r,
        s,
      ]),
      /invalid authorization signature/,
    );
    assert.equal(await read<bigint>('balanceOf', RECIPIENT), before);
  });
});

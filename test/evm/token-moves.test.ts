/**
 * What moves tokens, read from calldata and EIP-712 typed data (src/domain/evm/token-moves.ts).
 * Calldata is encoded with ethers (an independent ABI encoder); the standards' type definitions
 * are checked against the type strings the contracts hash (Permit2's PermitHash.sol, EIP-2612,
 * EIP-3009), and viem's EIP-712 hash of each Permit2 document against ethers' TypedDataEncoder.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ethers } from 'ethers';
import { hashTypedData, type Hex, type TypedDataDefinition } from 'viem';
import {
  tokenMovesOfCalldata,
  tokenMovesOfTypedData,
  type TokenMove,
  type TypedDataInput,
} from '../../src/domain/evm/token-moves.js';

const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const OTHER_TOKEN = '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512';
const OWNER = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const SPENDER = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
const PERMIT2 = '0x000000000022D473030F116dDEE9F6B43aC78BA3';
const MAX_UINT256 = 2n ** 256n - 1n;
const MAX_UINT160 = 2n ** 160n - 1n;

const erc20 = new ethers.Interface([
  'function transfer(address to, uint256 value)',
  'function transferFrom(address from, address to, uint256 value)',
  'function approve(address spender, uint256 value)',
  'function increaseAllowance(address spender, uint256 addedValue)',
  'function decreaseAllowance(address spender, uint256 subtractedValue)',
  'function balanceOf(address owner)',
]);
const call = (name: string, args: unknown[]): Hex => erc20.encodeFunctionData(name, args) as Hex;

function move(overrides: Partial<TokenMove> & Pick<TokenMove, 'kind'>): TokenMove {
  return { token: TOKEN, counterparty: SPENDER, role: 'spender', amount: 0n, unlimited: false, ...overrides };
}

describe('tokenMovesOfCalldata', () => {
  it('reads transfer, transferFrom, approve and increaseAllowance, checksumming lower-case addresses', () => {
    const to = TOKEN.toLowerCase() as Hex;
    assert.deepEqual(tokenMovesOfCalldata(to, call('transfer', [RECIPIENT.toLowerCase(), 1234n])), {
      readable: true,
      trailingBytes: 0,
      moves: [move({ kind: 'transfer', counterparty: RECIPIENT, role: 'recipient', amount: 1234n })],
    });
    assert.deepEqual(tokenMovesOfCalldata(to, call('transferFrom', [OWNER, RECIPIENT, 5n])), {
      readable: true,
      trailingBytes: 0,
      moves: [move({ kind: 'transferFrom', counterparty: RECIPIENT, role: 'recipient', amount: 5n })],
    });
    assert.deepEqual(tokenMovesOfCalldata(to, call('approve', [SPENDER, 77n])), {
      readable: true,
      trailingBytes: 0,
      moves: [move({ kind: 'approve', amount: 77n })],
    });
    assert.deepEqual(tokenMovesOfCalldata(to, call('increaseAllowance', [SPENDER, 8n])), {
      readable: true,
      trailingBytes: 0,
      moves: [move({ kind: 'increaseAllowance', amount: 8n })],
    });
  });

  it('flags allowances of 2^255 or more as unlimited, never a transfer', () => {
    const unlimited = (data: Hex) => tokenMovesOfCalldata(TOKEN, data).moves.map((m) => [m.amount, m.unlimited]);
    assert.deepEqual(unlimited(call('approve', [SPENDER, MAX_UINT256])), [[MAX_UINT256, true]]);
    assert.deepEqual(unlimited(call('approve', [SPENDER, 2n ** 255n])), [[2n ** 255n, true]]);
    assert.deepEqual(unlimited(call('approve', [SPENDER, 2n ** 255n - 1n])), [[2n ** 255n - 1n, false]]);
    assert.deepEqual(unlimited(call('increaseAllowance', [SPENDER, MAX_UINT256])), [[MAX_UINT256, true]]);
    assert.deepEqual(unlimited(call('transfer', [RECIPIENT, MAX_UINT256])), [[MAX_UINT256, false]]);
  });

  it('empty calldata moves no token and is readable', () => {
    assert.deepEqual(tokenMovesOfCalldata(RECIPIENT, '0x'), { moves: [], readable: true });
    assert.deepEqual(tokenMovesOfCalldata(null, '0x'), { moves: [], readable: true });
  });

  it('another function or a deployment is unreadable, with no moves', () => {
    const cases: [string, EvmTo, Hex][] = [
      ['another function (balanceOf)', TOKEN, call('balanceOf', [OWNER])],
      ['decreaseAllowance (not a move)', TOKEN, call('decreaseAllowance', [SPENDER, 1n])],
      ['a deployment (no to) starting with a token selector', null, call('transfer', [RECIPIENT, 1n])],
      ['not hex', TOKEN, '0xzz' as Hex],
    ];
    for (const [what, to, data] of cases) {
      assert.deepEqual(tokenMovesOfCalldata(to, data), { moves: [], readable: false }, what);
    }
  });

  it('bytes after the arguments are ignored, as the token contract ignores them: the move is counted', () => {
    // The repro of issue 36: transfer(to, 1000000) and one zero byte was "a contract call the
    // wallet cannot read" (amount 0), so the token caps never saw the 1,000,000 it moves.
    const cases: [string, Hex, number, TokenMove][] = [
      [
        'a trailing zero byte',
        `${call('transfer', [RECIPIENT, 1_000_000n])}00` as Hex,
        1,
        move({ kind: 'transfer', counterparty: RECIPIENT, role: 'recipient', amount: 1_000_000n }),
      ],
      [
        'two extra words',
        `${call('transfer', [RECIPIENT, 7n])}${'00'.repeat(31)}01${'ff'.repeat(32)}` as Hex,
        64,
        move({ kind: 'transfer', counterparty: RECIPIENT, role: 'recipient', amount: 7n }),
      ],
      [
        'transferFrom and a word',
        `${call('transferFrom', [OWNER, RECIPIENT, 5n])}${'00'.repeat(32)}` as Hex,
        32,
        move({ kind: 'transferFrom', counterparty: RECIPIENT, role: 'recipient', amount: 5n }),
      ],
      [
        'an unlimited approve and a byte',
        `${call('approve', [SPENDER, MAX_UINT256])}ab` as Hex,
        1,
        move({ kind: 'approve', amount: MAX_UINT256, unlimited: true }),
      ],
    ];
    for (const [what, data, trailingBytes, expected] of cases) {
      assert.deepEqual(tokenMovesOfCalldata(TOKEN, data), { readable: true, trailingBytes, moves: [expected] }, what);
    }
  });

  it('a token selector whose arguments do not decode is garbled: no moves, never "moves nothing"', () => {
    const transfer = call('transfer', [RECIPIENT, 1n]);
    const dirtyAddress = `${transfer.slice(0, 10)}${'ff'.repeat(12)}${transfer.slice(34)}` as Hex;
    const cases: [string, Hex][] = [
      ['a bare selector', transfer.slice(0, 10) as Hex],
      ['a selector and three bytes', transfer.slice(0, 16) as Hex],
      ['one argument missing', transfer.slice(0, 74) as Hex],
      ['the amount one byte short', transfer.slice(0, -2) as Hex],
      ['an address word with dirty upper bytes', dirtyAddress],
      ['transferFrom with a dirty from', dirtyFirstWord(call('transferFrom', [OWNER, RECIPIENT, 1n]))],
      ['an odd number of digits', `${transfer}0` as Hex],
      ['an upper-case selector, cut short', transfer.slice(0, 20).toUpperCase().replace('0X', '0x') as Hex],
    ];
    for (const [what, data] of cases) {
      assert.deepEqual(tokenMovesOfCalldata(TOKEN, data), { moves: [], readable: false, garbled: true }, what);
    }
  });
});

type EvmTo = Hex | null;

function dirtyFirstWord(data: Hex): Hex {
  return `${data.slice(0, 10)}${'01'.repeat(12)}${data.slice(34)}` as Hex;
}

const EIP712_DOMAIN_TYPES = {
  named: [
    { name: 'name', type: 'string' },
    { name: 'version', type: 'string' },
    { name: 'chainId', type: 'uint256' },
    { name: 'verifyingContract', type: 'address' },
  ],
  permit2: [
    { name: 'name', type: 'string' },
    { name: 'chainId', type: 'uint256' },
    { name: 'verifyingContract', type: 'address' },
  ],
};

const tokenDomain = { name: 'Test Token', version: '1', chainId: 31337, verifyingContract: TOKEN };
const permit2Domain = { name: 'Permit2', chainId: 31337, verifyingContract: PERMIT2 };

function eip2612(value: bigint | string): TypedDataInput {
  return {
    domain: tokenDomain,
    types: {
      EIP712Domain: EIP712_DOMAIN_TYPES.named,
      Permit: [
        { name: 'owner', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'nonce', type: 'uint256' },
        { name: 'deadline', type: 'uint256' },
      ],
    },
    primaryType: 'Permit',
    message: { owner: OWNER, spender: SPENDER, value, nonce: 0, deadline: '1900000000' },
  };
}

function daiPermit(allowed: boolean): TypedDataInput {
  return {
    domain: { name: 'Dai Stablecoin', version: '1', chainId: 1, verifyingContract: TOKEN },
    types: {
      Permit: [
        { name: 'holder', type: 'address' },
        { name: 'spender', type: 'address' },
        { name: 'nonce', type: 'uint256' },
        { name: 'expiry', type: 'uint256' },
        { name: 'allowed', type: 'bool' },
      ],
    },
    primaryType: 'Permit',
    message: { holder: OWNER, spender: SPENDER, nonce: 3, expiry: 0, allowed },
  };
}

function authorization(primaryType: 'TransferWithAuthorization' | 'ReceiveWithAuthorization'): TypedDataInput {
  return {
    domain: { name: 'USD Coin', version: '2', chainId: '0x7a69', verifyingContract: TOKEN },
    types: {
      [primaryType]: [
        { name: 'from', type: 'address' },
        { name: 'to', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' },
        { name: 'validBefore', type: 'uint256' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType,
    message: {
      from: OWNER,
      to: RECIPIENT,
      value: '2500000',
      validAfter: 0,
      validBefore: 1900000000,
      nonce: `0x${'ab'.repeat(32)}`,
    },
  };
}

const PERMIT_DETAILS = [
  { name: 'token', type: 'address' },
  { name: 'amount', type: 'uint160' },
  { name: 'expiration', type: 'uint48' },
  { name: 'nonce', type: 'uint48' },
];
const TOKEN_PERMISSIONS = [
  { name: 'token', type: 'address' },
  { name: 'amount', type: 'uint256' },
];

function permitSingle(amount: bigint | string): TypedDataInput {
  return {
    domain: permit2Domain,
    types: {
      PermitSingle: [
        { name: 'details', type: 'PermitDetails' },
        { name: 'spender', type: 'address' },
        { name: 'sigDeadline', type: 'uint256' },
      ],
      PermitDetails: PERMIT_DETAILS,
    },
    primaryType: 'PermitSingle',
    message: {
      details: { token: TOKEN, amount, expiration: 1900000000, nonce: 0 },
      spender: SPENDER,
      sigDeadline: '1900000000',
    },
  };
}

function permitBatch(): TypedDataInput {
  return {
    domain: permit2Domain,
    types: {
      PermitBatch: [
        { name: 'details', type: 'PermitDetails[]' },
        { name: 'spender', type: 'address' },
        { name: 'sigDeadline', type: 'uint256' },
      ],
      PermitDetails: PERMIT_DETAILS,
    },
    primaryType: 'PermitBatch',
    message: {
      details: [
        { token: TOKEN, amount: '1000', expiration: 1900000000, nonce: 1 },
        { token: OTHER_TOKEN, amount: MAX_UINT160.toString(), expiration: 1900000000, nonce: 0 },
      ],
      spender: SPENDER,
      sigDeadline: 1900000000,
    },
  };
}

const SIGNATURE_TRANSFER_FIELDS = (permitted: string) => [
  { name: 'permitted', type: permitted },
  { name: 'spender', type: 'address' },
  { name: 'nonce', type: 'uint256' },
  { name: 'deadline', type: 'uint256' },
];

/** A witness struct as integrators write one (UniswapX's orders are of this kind). */
const EXAMPLE_WITNESS = [
  { name: 'user', type: 'address' },
  { name: 'deadline', type: 'uint256' },
];

function permitTransferFrom(options: { batch: boolean; witness: boolean }): TypedDataInput {
  const primaryType = `Permit${options.batch ? 'Batch' : ''}${options.witness ? 'Witness' : ''}TransferFrom`;
  const permitted = options.batch
    ? [
        { token: TOKEN, amount: '10' },
        { token: OTHER_TOKEN, amount: (2n ** 200n).toString() },
      ]
    : { token: TOKEN, amount: '10' };
  return {
    domain: permit2Domain,
    types: {
      [primaryType]: [
        ...SIGNATURE_TRANSFER_FIELDS(options.batch ? 'TokenPermissions[]' : 'TokenPermissions'),
        ...(options.witness ? [{ name: 'witness', type: 'ExampleWitness' }] : []),
      ],
      TokenPermissions: TOKEN_PERMISSIONS,
      ...(options.witness ? { ExampleWitness: EXAMPLE_WITNESS } : {}),
    },
    primaryType,
    message: {
      permitted,
      spender: SPENDER,
      nonce: '7',
      deadline: 1900000000,
      ...(options.witness ? { witness: { user: RECIPIENT, deadline: 5 } } : {}),
    },
  };
}

describe('tokenMovesOfTypedData', () => {
  it('EIP-2612 Permit: the domain contract grants value to spender; 2^256-1 is unlimited', () => {
    assert.deepEqual(tokenMovesOfTypedData(eip2612('1000000')), {
      recognised: true,
      chainId: 31337,
      moves: [move({ kind: 'permit', amount: 1_000_000n })],
    });
    const unlimited = tokenMovesOfTypedData(eip2612(MAX_UINT256));
    assert.deepEqual(unlimited.moves, [move({ kind: 'permit', amount: MAX_UINT256, unlimited: true })]);
  });

  it("DAI's permit: allowed = true is an unlimited allowance, allowed = false a revocation", () => {
    assert.deepEqual(tokenMovesOfTypedData(daiPermit(true)), {
      recognised: true,
      chainId: 1,
      moves: [move({ kind: 'dai-permit', amount: MAX_UINT256, unlimited: true })],
    });
    assert.deepEqual(tokenMovesOfTypedData(daiPermit(false)).moves, [move({ kind: 'dai-permit', amount: 0n })]);
  });

  it('EIP-3009 transfer and receive authorizations pay value to to; a hex chainId reads as a number', () => {
    for (const [primaryType, kind] of [
      ['TransferWithAuthorization', 'transferWithAuthorization'],
      ['ReceiveWithAuthorization', 'receiveWithAuthorization'],
    ] as const) {
      assert.deepEqual(tokenMovesOfTypedData(authorization(primaryType)), {
        recognised: true,
        chainId: 31337,
        moves: [move({ kind, counterparty: RECIPIENT, role: 'recipient', amount: 2_500_000n })],
      });
    }
  });

  it('Permit2 PermitSingle and PermitBatch: one allowance per token; uint160 max is unlimited', () => {
    assert.deepEqual(tokenMovesOfTypedData(permitSingle('500')), {
      recognised: true,
      chainId: 31337,
      moves: [move({ kind: 'permit2', amount: 500n })],
    });
    assert.deepEqual(tokenMovesOfTypedData(permitSingle(MAX_UINT160)).moves, [
      move({ kind: 'permit2', amount: MAX_UINT160, unlimited: true }),
    ]);
    assert.deepEqual(tokenMovesOfTypedData(permitSingle(MAX_UINT160 - 1n)).moves[0]?.unlimited, false);
    assert.deepEqual(tokenMovesOfTypedData(permitBatch()), {
      recognised: true,
      chainId: 31337,
      moves: [
        move({ kind: 'permit2', amount: 1000n }),
        move({ kind: 'permit2', token: OTHER_TOKEN, amount: MAX_UINT160, unlimited: true }),
      ],
    });
  });

  it('Permit2 signature transfers, with and without a witness, single and batch', () => {
    for (const witness of [false, true]) {
      const single = tokenMovesOfTypedData(permitTransferFrom({ batch: false, witness }));
      assert.deepEqual(single, { recognised: true, chainId: 31337, moves: [move({ kind: 'permit2', amount: 10n })] });
      const batch = tokenMovesOfTypedData(permitTransferFrom({ batch: true, witness }));
      assert.deepEqual(batch, {
        recognised: true,
        chainId: 31337,
        moves: [
          move({ kind: 'permit2', amount: 10n }),
          move({ kind: 'permit2', token: OTHER_TOKEN, amount: 2n ** 200n, unlimited: true }),
        ],
      });
    }
  });

  it('a look-alike is not recognised: same names, other fields, types or order', () => {
    const withTypes = (typed: TypedDataInput, types: TypedDataInput['types']): TypedDataInput => ({
      ...typed,
      types: { ...typed.types, ...types },
    });
    const permitFields = eip2612('1').types['Permit'] ?? [];
    const lookAlikes: [string, TypedDataInput][] = [
      [
        'Permit with one more field',
        withTypes(eip2612('1'), { Permit: [...permitFields, { name: 'memo', type: 'string' }] }),
      ],
      ['Permit with one field fewer', withTypes(eip2612('1'), { Permit: permitFields.slice(0, 4) })],
      [
        'Permit with value as uint128',
        withTypes(eip2612('1'), {
          Permit: permitFields.map((field) => (field.name === 'value' ? { ...field, type: 'uint128' } : field)),
        }),
      ],
      [
        'Permit with owner and spender swapped',
        withTypes(eip2612('1'), { Permit: [...permitFields.slice(0, 2).reverse(), ...permitFields.slice(2)] }),
      ],
      [
        'Permit with spender renamed',
        withTypes(eip2612('1'), {
          Permit: permitFields.map((field) => (field.name === 'spender' ? { ...field, name: 'operator' } : field)),
        }),
      ],
      [
        'Permit whose address is redefined as a struct',
        withTypes(eip2612('1'), { address: [{ name: 'x', type: 'uint256' }] }),
      ],
      [
        'PermitSingle with an altered PermitDetails',
        withTypes(permitSingle('1'), { PermitDetails: PERMIT_DETAILS.slice(0, 3) }),
      ],
      [
        'PermitSingle with PermitDetails.amount as uint256',
        withTypes(permitSingle('1'), {
          PermitDetails: PERMIT_DETAILS.map((field) =>
            field.name === 'amount' ? { ...field, type: 'uint256' } : field,
          ),
        }),
      ],
      [
        'PermitTransferFrom with TokenPermissions renamed fields',
        withTypes(permitTransferFrom({ batch: false, witness: false }), {
          TokenPermissions: [
            { name: 'asset', type: 'address' },
            { name: 'amount', type: 'uint256' },
          ],
        }),
      ],
      [
        'a witness transfer without its witness',
        withTypes(permitTransferFrom({ batch: false, witness: true }), {
          PermitWitnessTransferFrom: SIGNATURE_TRANSFER_FIELDS('TokenPermissions'),
        }),
      ],
      [
        'a witness transfer with two extra fields',
        withTypes(permitTransferFrom({ batch: true, witness: true }), {
          PermitBatchWitnessTransferFrom: [
            ...SIGNATURE_TRANSFER_FIELDS('TokenPermissions[]'),
            { name: 'witness', type: 'ExampleWitness' },
            { name: 'more', type: 'uint256' },
          ],
        }),
      ],
      [
        'a witness transfer whose TokenPermissions has another field',
        withTypes(permitTransferFrom({ batch: false, witness: true }), {
          TokenPermissions: [...TOKEN_PERMISSIONS, { name: 'extra', type: 'bool' }],
        }),
      ],
    ];
    for (const [what, typed] of lookAlikes) {
      assert.deepEqual(tokenMovesOfTypedData(typed), { moves: [], recognised: false, chainId: 31337 }, what);
    }
  });

  it('not recognised either: other documents, no token contract, values that do not fit, Permit2 types elsewhere', () => {
    const mail: TypedDataInput = {
      domain: { name: 'Ether Mail', version: '1', chainId: 1 },
      types: { Mail: [{ name: 'contents', type: 'string' }] },
      primaryType: 'Mail',
      message: { contents: 'hello' },
    };
    const { verifyingContract: _dropped, ...noContract } = tokenDomain;
    const cases: [string, TypedDataInput][] = [
      ['a mail', mail],
      ['a permit without verifyingContract', { ...eip2612('1'), domain: noContract }],
      [
        'a permit with a spender that is no address',
        { ...eip2612('1'), message: { ...eip2612('1').message, spender: 'bob' } },
      ],
      ['a permit with a negative value', eip2612('-1')],
      ['a permit with a value above uint256', eip2612((MAX_UINT256 + 1n).toString())],
      ['PermitSingle with an amount above uint160', permitSingle((MAX_UINT160 + 1n).toString())],
      ['PermitSingle outside a domain named Permit2', { ...permitSingle('1'), domain: tokenDomain }],
      ['an EIP-2612 Permit inside a domain named Permit2', { ...eip2612('1'), domain: permit2Domain }],
      ['a batch whose details is no list', { ...permitBatch(), message: { ...permitBatch().message, details: {} } }],
      [
        'an authorization with a short nonce',
        {
          ...authorization('TransferWithAuthorization'),
          message: { ...authorization('TransferWithAuthorization').message, nonce: '0x01' },
        },
      ],
    ];
    for (const [what, typed] of cases) {
      const read = tokenMovesOfTypedData(typed);
      assert.deepEqual([read.recognised, read.moves], [false, []], what);
    }
  });

  it('chainId: a number, decimal or hex text; null when absent or not a chain id', () => {
    const withChainId = (chainId: unknown) =>
      tokenMovesOfTypedData({ ...eip2612('1'), domain: { ...tokenDomain, chainId } }).chainId;
    assert.equal(withChainId(10), 10);
    assert.equal(withChainId('137'), 137);
    assert.equal(withChainId('0x2105'), 8453);
    assert.equal(withChainId(undefined), null);
    assert.equal(withChainId('mainnet'), null);
    assert.equal(withChainId(2 ** 60), null);
    const { chainId: _none, ...noChain } = tokenDomain;
    const read = tokenMovesOfTypedData({ ...eip2612('1'), domain: noChain });
    assert.deepEqual([read.recognised, read.chainId], [true, null]);
  });
});

describe('the standard definitions are the ones the contracts hash', () => {
  /** ethers' encodeType of the primary type: the string whose keccak256 is the contract's typehash. */
  const encodeType = (typed: TypedDataInput): string => {
    const { EIP712Domain: _domain, ...types } = typed.types;
    return ethers.TypedDataEncoder.from(types as Record<string, ethers.TypedDataField[]>).encodeType(typed.primaryType);
  };

  it("EIP-2612's, DAI's and EIP-3009's type strings", () => {
    assert.equal(
      encodeType(eip2612('1')),
      'Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)',
    );
    assert.equal(
      encodeType(daiPermit(true)),
      'Permit(address holder,address spender,uint256 nonce,uint256 expiry,bool allowed)',
    );
    assert.equal(
      encodeType(authorization('TransferWithAuthorization')),
      'TransferWithAuthorization(address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce)',
    );
  });

  it("Permit2's type strings, as in its PermitHash.sol (the witness ones: the stub, then the witness type string)", () => {
    const details = 'PermitDetails(address token,uint160 amount,uint48 expiration,uint48 nonce)';
    const permissions = 'TokenPermissions(address token,uint256 amount)';
    assert.equal(
      encodeType(permitSingle('1')),
      `PermitSingle(PermitDetails details,address spender,uint256 sigDeadline)${details}`,
    );
    assert.equal(
      encodeType(permitBatch()),
      `PermitBatch(PermitDetails[] details,address spender,uint256 sigDeadline)${details}`,
    );
    assert.equal(
      encodeType(permitTransferFrom({ batch: false, witness: false })),
      `PermitTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline)${permissions}`,
    );
    assert.equal(
      encodeType(permitTransferFrom({ batch: true, witness: false })),
      `PermitBatchTransferFrom(TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline)${permissions}`,
    );
    const witnessTypeString = `ExampleWitness witness)ExampleWitness(address user,uint256 deadline)${permissions}`;
    assert.equal(
      encodeType(permitTransferFrom({ batch: false, witness: true })),
      `PermitWitnessTransferFrom(TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,${witnessTypeString}`,
    );
    assert.equal(
      encodeType(permitTransferFrom({ batch: true, witness: true })),
      `PermitBatchWitnessTransferFrom(TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline,${witnessTypeString}`,
    );
  });

  it("viem's EIP-712 hash of every Permit2 document equals ethers' TypedDataEncoder.hash", () => {
    const documents = [
      permitSingle('500'),
      permitSingle(MAX_UINT160),
      permitBatch(),
      permitTransferFrom({ batch: false, witness: false }),
      permitTransferFrom({ batch: true, witness: false }),
      permitTransferFrom({ batch: false, witness: true }),
      permitTransferFrom({ batch: true, witness: true }),
    ];
    for (const typed of documents) {
      const viemHash = hashTypedData({
        ...typed,
        types: { EIP712Domain: EIP712_DOMAIN_TYPES.permit2, ...typed.types },
      } as unknown as TypedDataDefinition);
      const ethersHash = ethers.TypedDataEncoder.hash(
        permit2Domain,
        typed.types as Record<string, ethers.TypedDataField[]>,
        typed.message,
      );
      assert.equal(viemHash, ethersHash, typed.primaryType);
      assert.equal(tokenMovesOfTypedData(typed).recognised, true, typed.primaryType);
    }
  });
});

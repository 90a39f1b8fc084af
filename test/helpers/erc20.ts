/**
 * The test ERC-20 (test/fixtures/erc20/Token.sol): compiled at test time with solc-js, deployed to
 * and moved on an anvil node through plain JSON-RPC from anvil's first, unlocked account.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeDeployData, encodeFunctionData, type Abi, type Address, type Hash, type Hex } from 'viem';
import { ANVIL_FIRST_ACCOUNT, type AnvilNode } from './anvil.js';
import { ROOT } from './paths.js';

export const TOKEN_SOURCE = join(ROOT, 'test', 'fixtures', 'erc20', 'Token.sol');

const RECEIPT_TIMEOUT_MS = 10_000;

/** The part of solc-js we use: its `index.d.ts` types `compile` as `any`. */
type Solc = { compile(standardJsonInput: string): string };
type SolcOutput = {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
};

export type CompiledToken = { abi: Abi; bytecode: Hex };

export type TokenParameters = { name: string; symbol: string; decimals: number; supply: bigint };

type TransactionReceipt = { transactionHash: Hash; status: Hex; contractAddress: Address | null };

let compiled: CompiledToken | undefined;

/** Compiles Token.sol once per process (about a second of solc-js wasm) and returns its ABI and creation code. */
export function compileToken(): CompiledToken {
  if (compiled) return compiled;
  const solc = createRequire(import.meta.url)('solc') as Solc;
  const input = {
    language: 'Solidity',
    sources: { 'Token.sol': { content: readFileSync(TOKEN_SOURCE, 'utf8') } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { 'Token.sol': { Token: ['abi', 'evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((entry) => entry.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc could not compile ${TOKEN_SOURCE}:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }
  const token = output.contracts?.['Token.sol']?.['Token'];
  if (!token) throw new Error(`solc produced no Token contract from ${TOKEN_SOURCE}`);
  compiled = { abi: token.abi, bytecode: `0x${token.evm.bytecode.object}` };
  return compiled;
}

/**
 * Deploys a fresh Token from ANVIL_FIRST_ACCOUNT, which receives the whole supply.
 *
 * @example
 * const token = await deployToken(node, { name: 'Test', symbol: 'TST', decimals: 6, supply: 1_000_000n });
 */
export async function deployToken(node: AnvilNode, parameters: TokenParameters): Promise<Address> {
  const { abi, bytecode } = compileToken();
  const data = encodeDeployData({
    abi,
    bytecode,
    args: [parameters.name, parameters.symbol, parameters.decimals, parameters.supply],
  });
  const receipt = await send(node, { from: ANVIL_FIRST_ACCOUNT, data });
  if (!receipt.contractAddress) throw new Error(`deployment ${receipt.transactionHash} created no contract`);
  return receipt.contractAddress;
}

/** Sends `amount` (base units) of `token` from ANVIL_FIRST_ACCOUNT to `to`; resolves once mined. */
export async function transferToken(node: AnvilNode, token: Address, to: Address, amount: bigint): Promise<Hash> {
  const data = encodeFunctionData({ abi: compileToken().abi, functionName: 'transfer', args: [to, amount] });
  const receipt = await send(node, { from: ANVIL_FIRST_ACCOUNT, to: token, data });
  return receipt.transactionHash;
}

async function send(
  node: AnvilNode,
  transaction: { from: Address; to?: Address; data: Hex },
): Promise<TransactionReceipt> {
  const hash = await node.rpc<Hash>('eth_sendTransaction', [transaction]);
  const deadline = Date.now() + RECEIPT_TIMEOUT_MS;
  for (;;) {
    const receipt = await node.rpc<TransactionReceipt | null>('eth_getTransactionReceipt', [hash]);
    if (receipt) {
      if (receipt.status !== '0x1') throw new Error(`transaction ${hash} reverted`);
      return receipt;
    }
    if (Date.now() > deadline) throw new Error(`transaction ${hash} was not mined within ${RECEIPT_TIMEOUT_MS} ms`);
    await sleep(50);
  }
}

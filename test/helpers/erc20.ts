/**
 * The test ERC-20s (test/fixtures/erc20/): Token.sol, and PermitToken.sol (Token with EIP-2612
 * permit and EIP-3009 transfer with authorization), and Puller.sol (takes its caller's tokens
 * with an allowance, as a router does), SimulationAware.sol and FeeToken.sol (hostile ones), compiled at test time with solc-js, deployed
 * to and moved on an anvil node through plain JSON-RPC from anvil's first, unlocked account.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { encodeDeployData, encodeFunctionData, type Abi, type Address, type Hash, type Hex } from 'viem';
import { ANVIL_FIRST_ACCOUNT, type AnvilNode } from './anvil.js';
import { ROOT } from './paths.js';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'erc20');
export const TOKEN_SOURCE = join(FIXTURES, 'Token.sol');
export const PERMIT_TOKEN_SOURCE = join(FIXTURES, 'PermitToken.sol');

/** The part of solc-js we use: its `index.d.ts` types `compile` as `any`. */
type Solc = { compile(standardJsonInput: string): string };
type SolcOutput = {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
};

export type CompiledToken = { abi: Abi; bytecode: Hex };

export type TokenParameters = { name: string; symbol: string; decimals: number; supply: bigint };

export type TransactionReceipt = { transactionHash: Hash; status: Hex; contractAddress: Address | null };

/** The fixture contracts: source file name -> contract name. */
const CONTRACTS = {
  'Token.sol': 'Token',
  'PermitToken.sol': 'PermitToken',
  'Puller.sol': 'Puller',
  'SimulationAware.sol': 'SimulationAware',
  'FeeToken.sol': 'FeeToken',
} as const;
export type ContractName = (typeof CONTRACTS)[keyof typeof CONTRACTS];

let compiled: Record<ContractName, CompiledToken> | undefined;

/** Compiles the fixtures once per process (a second or two of solc-js wasm). */
function compileFixtures(): Record<ContractName, CompiledToken> {
  if (compiled) return compiled;
  const solc = createRequire(import.meta.url)('solc') as Solc;
  const files = Object.keys(CONTRACTS) as (keyof typeof CONTRACTS)[];
  const input = {
    language: 'Solidity',
    sources: Object.fromEntries(files.map((file) => [file, { content: readFileSync(join(FIXTURES, file), 'utf8') }])),
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: Object.fromEntries(
        files.map((file) => [file, { [CONTRACTS[file]]: ['abi', 'evm.bytecode.object'] }]),
      ),
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput;
  const errors = (output.errors ?? []).filter((entry) => entry.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc could not compile ${FIXTURES}:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }
  const result = {} as Record<ContractName, CompiledToken>;
  for (const file of files) {
    const contract = output.contracts?.[file]?.[CONTRACTS[file]];
    if (!contract) throw new Error(`solc produced no ${CONTRACTS[file]} contract from ${join(FIXTURES, file)}`);
    result[CONTRACTS[file]] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
  }
  compiled = result;
  return compiled;
}

/**
 * A fixture's ABI and creation code: SimulationAware.sol (pulls tokens only when the gas price is
 * not zero; reverts with a forged line), FeeToken.sol (transfer takes a 1% fee to a collector).
 */
export function compileFixture(name: ContractName): CompiledToken {
  return compileFixtures()[name];
}

/** Token.sol's ABI and creation code. */
export function compileToken(): CompiledToken {
  return compileFixtures().Token;
}

/** PermitToken.sol's ABI and creation code: Token plus permit, nonces, DOMAIN_SEPARATOR and EIP-3009. */
export function compilePermitToken(): CompiledToken {
  return compileFixtures().PermitToken;
}

/** Puller.sol's ABI and creation code: `pull(token, amount)` takes the caller's tokens with its allowance. */
export function compilePuller(): CompiledToken {
  return compileFixtures().Puller;
}

/** Deploys a Puller from ANVIL_FIRST_ACCOUNT; resolves to its address. */
export function deployPuller(node: AnvilNode): Promise<Address> {
  return deployContract(node, compilePuller().bytecode);
}

/**
 * Deploys a fresh Token from ANVIL_FIRST_ACCOUNT, which receives the whole supply.
 *
 * @example
 * const token = await deployToken(node, { name: 'Test', symbol: 'TST', decimals: 6, supply: 1_000_000n });
 */
export function deployToken(node: AnvilNode, parameters: TokenParameters): Promise<Address> {
  return deploy(node, compileToken(), parameters);
}

/**
 * Deploys a fresh PermitToken (EIP-712 domain: its name, version "1", the node's chain id, its
 * address) from ANVIL_FIRST_ACCOUNT, which receives the whole supply.
 *
 * @example
 * const token = await deployPermitToken(node, { name: 'Permit Token', symbol: 'PTK', decimals: 6, supply: 1_000_000n });
 */
export function deployPermitToken(node: AnvilNode, parameters: TokenParameters): Promise<Address> {
  return deploy(node, compilePermitToken(), parameters);
}

async function deploy(
  node: AnvilNode,
  { abi, bytecode }: CompiledToken,
  parameters: TokenParameters,
): Promise<Address> {
  const data = encodeDeployData({
    abi,
    bytecode,
    args: [parameters.name, parameters.symbol, parameters.decimals, parameters.supply],
  });
  return deployContract(node, data);
}

/** Deploys `initCode` (creation code with its constructor arguments) from ANVIL_FIRST_ACCOUNT; resolves to the contract. */
export async function deployContract(node: AnvilNode, initCode: Hex): Promise<Address> {
  const receipt = await sendAndWait(node, { from: ANVIL_FIRST_ACCOUNT, data: initCode });
  if (!receipt.contractAddress) throw new Error(`deployment ${receipt.transactionHash} created no contract`);
  return receipt.contractAddress;
}

/** Sends `amount` (base units) of `token` from ANVIL_FIRST_ACCOUNT to `to`; resolves once mined. */
export async function transferToken(node: AnvilNode, token: Address, to: Address, amount: bigint): Promise<Hash> {
  const data = encodeFunctionData({ abi: compileToken().abi, functionName: 'transfer', args: [to, amount] });
  const receipt = await sendAndWait(node, { from: ANVIL_FIRST_ACCOUNT, to: token, data });
  return receipt.transactionHash;
}

/**
 * Sends a transaction from one of anvil's unlocked accounts (`eth_sendTransaction`) and resolves
 * to its receipt once mined; rejects when the node refuses it (a call that reverts is refused at
 * its gas estimate, with the revert reason) or when it reverted.
 */
export async function sendAndWait(
  node: AnvilNode,
  transaction: { from: Address; to?: Address; data: Hex },
): Promise<TransactionReceipt> {
  const hash = await node.rpc<Hash>('eth_sendTransaction', [transaction]);
  const receipt = await node.mined<TransactionReceipt>(hash);
  if (receipt.status !== '0x1')
    throw new Error(`transaction ${hash} reverted: ${await revertReason(node, transaction)}`);
  return receipt;
}

/** Why a transaction reverted, as the node says when the same call is run again. */
async function revertReason(node: AnvilNode, transaction: { from: Address; to?: Address; data: Hex }): Promise<string> {
  try {
    await node.rpc('eth_call', [transaction, 'latest']);
    return 'the same call succeeds now';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

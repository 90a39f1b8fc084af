import { z } from 'zod';
import { formatEther, formatUnits } from '../../shared/amounts.js';
import { defineTool } from '../define.js';
import { coinsOf, EvmAddress, EvmAddressOrAlias, OptionalEvmNetwork, tokenUnits, WeiAmount } from '../fields.js';

export const evmBalanceGet = defineTool({
  name: 'evm_balance_get',
  group: 'evm_account',
  title: 'EVM balance',
  summary: 'Get an address balance in wei and ether, or an ERC-20',
  description: [
    "Asks the network's node for the native balance of any address (or of a keystore account by",
    'alias): wei as a string of digits and ether in decimal. With token (an ERC-20 contract), also',
    'that token balance in base units and in whole tokens, with its symbol and decimals.',
    '',
    'Examples:',
    '  wallet evm-balance-get --address 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 --network local',
    '  wallet evm-balance-get --address savings --network sepolia --token 0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238',
  ].join('\n'),
  input: () =>
    z.strictObject({
      address: EvmAddressOrAlias.describe('The address to look at. Or the alias of a keystore account.'),
      network: OptionalEvmNetwork,
      token: EvmAddress.optional().describe("Also this ERC-20 token's balance. The token contract's address."),
    }),
  output: () =>
    z.object({
      address: z.string().describe('The address, checksummed.'),
      network: z.string().describe('The EVM network asked.'),
      wei: WeiAmount.describe('The native balance in wei (digits).'),
      ether: coinsOf('wei').describe('The native balance in ether (decimal).'),
      token: z.string().nullable().describe('The ERC-20 contract, checksummed; null without token.'),
      token_symbol: z.string().nullable().describe("The token's symbol; null if it has none readable."),
      token_decimals: z.int().nullable().describe("The token's decimals."),
      token_balance: tokenUnits('token_decimals', 'token_symbol')
        .nullable()
        .describe('The token balance in base units (digits).'),
      token_amount: coinsOf('token_balance').nullable().describe('The token balance in whole tokens (decimal).'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ address, network, token }, { services, signal }) => {
    const { getBalance } = await import('../../domain/evm/balances.js');
    const balance = await getBalance(services, { address, network, token }, signal);
    return {
      address: balance.address,
      network: balance.network,
      wei: balance.wei.toString(),
      ether: formatEther(balance.wei),
      token: balance.token?.address ?? null,
      token_symbol: balance.token?.symbol ?? null,
      token_decimals: balance.token?.decimals ?? null,
      token_balance: balance.token?.balance.toString() ?? null,
      token_amount: balance.token ? formatUnits(balance.token.balance, balance.token.decimals) : null,
    };
  },
});

/** SLIP-44 coin type of Ether: accounts live at m/44'/60'/0'/0/i, as MetaMask and Ledger Live derive them. */
export const ETH_COIN_TYPE = 60;

/**
 * The BIP44 path of EVM account `index`. Apart from hd.ts, which derives on the curve: listing
 * and resolving accounts shows paths and loads no curve code (docs/PERFORMANCE.md).
 */
export function evmAccountPath(index: number): string {
  return `m/44'/${ETH_COIN_TYPE}'/0'/0/${index}`;
}

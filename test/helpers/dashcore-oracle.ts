/**
 * @dashevo/dashcore-lib, an implementation of Dash independent of the wallet's, as the oracle of
 * the keystore tools' tests (test/tools/core/): the addresses a mnemonic derives, and whether a
 * signed message verifies.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
type Dashcore = {
  Mnemonic: new (words: string) => {
    toHDPrivateKey(
      passphrase: string,
      network: string,
    ): { deriveChild(path: string): { privateKey: { toAddress(network: string): { toString(): string } } } };
  };
  Message: new (message: string) => { verify(address: string, signature: string): boolean };
};
const dashcore = require('@dashevo/dashcore-lib') as Dashcore;

/** The mnemonic of BIP39's first reference vector (all-zero entropy). */
export const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

/** The testnet address of `m/44'/1'/0'/<chain>/<index>` of a mnemonic, as dashcore-lib derives it. */
export function testnetAddressAt(mnemonic: string, chain: 0 | 1, index: number): string {
  return new dashcore.Mnemonic(mnemonic)
    .toHDPrivateKey('', 'testnet')
    .deriveChild(`m/44'/1'/0'/${chain}/${index}`)
    .privateKey.toAddress('testnet')
    .toString();
}

/** Whether dashcore-lib verifies a signed message. */
export function dashcoreVerifies(message: string, address: string, signature: string): boolean {
  return new dashcore.Message(message).verify(address, signature);
}

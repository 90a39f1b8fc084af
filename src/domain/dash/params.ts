import type { CoreNetwork } from '../config/networks.js';

/** The constants that make a Bitcoin-family chain Dash, per network (Dash Core's chainparams.cpp). */
export type DashParams = {
  network: CoreNetwork;
  /** Base58Check version byte of a P2PKH address ('X' on mainnet, 'y' on testnet and regtest). */
  pubKeyHash: number;
  /** Base58Check version byte of a P2SH address ('7' on mainnet, '8' on testnet and regtest). */
  scriptHash: number;
  /** Version byte of a WIF private key. */
  wif: number;
  /** BIP32 extended key version bytes (xpub/xprv on mainnet, tpub/tprv elsewhere). */
  bip32: { public: number; private: number };
  /** SLIP-44 coin type: 5 for Dash, 1 for every test network. */
  coinType: number;
};

const MAINNET: DashParams = {
  network: 'mainnet',
  pubKeyHash: 0x4c,
  scriptHash: 0x10,
  wif: 0xcc,
  bip32: { public: 0x0488b21e, private: 0x0488ade4 },
  coinType: 5,
};

const TESTNET: DashParams = {
  network: 'testnet',
  pubKeyHash: 0x8c,
  scriptHash: 0x13,
  wif: 0xef,
  bip32: { public: 0x043587cf, private: 0x04358394 },
  coinType: 1,
};

const PARAMS: Readonly<Record<CoreNetwork, DashParams>> = {
  mainnet: MAINNET,
  testnet: TESTNET,
  regtest: { ...TESTNET, network: 'regtest' },
};

export function dashParams(network: CoreNetwork): DashParams {
  return PARAMS[network];
}

/** Dash transactions are version 3 (type 0: a classic payment, no extra payload). */
export const DASH_TX_VERSION = 3;

/** The prefix of Dash's signed-message format, inherited from its first name. */
export const MESSAGE_MAGIC = 'DarkCoin Signed Message:\n';

/** Dash Core's default minimum relay fee and the wallet's default fee rate, in duffs per 1000 bytes. */
export const DEFAULT_FEE_RATE_DUFFS_PER_KB = 1000n;

/** Outputs below this many duffs are dust (Dash Core's IsDust for P2PKH): nodes refuse to relay them. */
export const DUST_LIMIT_DUFFS = 546n;

/** BIP44 gap limit: this many unused addresses in a row end a chain's discovery. */
export const GAP_LIMIT = 20;

/** Coinbase outputs may be spent only after this many confirmations. */
export const COINBASE_MATURITY = 100;

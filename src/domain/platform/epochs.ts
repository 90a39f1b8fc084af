/**
 * Platform epochs, proved by the SDK: each epoch's index, first block (height, time, Core chain
 * height), fee multiplier and protocol version.
 */
import type { PlatformNetwork } from './network.js';
import { platformRead } from './sdk.js';

export type PlatformEpoch = {
  index: number;
  firstBlockHeight: bigint;
  /** When its first block was made, ms since 1970. */
  firstBlockTimeMs: bigint;
  firstCoreBlockHeight: number;
  /** Its fee multiplier in thousandths (1000 is 1×). */
  feeMultiplierPermille: bigint;
  protocolVersion: number;
};

export type EpochsQuery = {
  /**
   * The first epoch. Always given: the 4.1.0 SDK cannot verify a proof of epochs counted back
   * from the current one without a start ("proved descending epoch queries require an explicit
   * start epoch").
   */
  startEpoch: number;
  count: number;
  ascending: boolean;
};

/** Up to `count` epochs from `startEpoch`, in the order asked; those not begun are left out. */
export async function fetchEpochs(network: PlatformNetwork, query: EpochsQuery): Promise<PlatformEpoch[]> {
  return platformRead(network, `epochs from epoch ${query.startEpoch}`, async (sdk) => {
    const epochs = await sdk.epoch.epochsInfo({
      startEpoch: query.startEpoch,
      count: query.count,
      ascending: query.ascending,
    });
    const found: PlatformEpoch[] = [];
    for (const epoch of epochs.values()) {
      if (!epoch) continue;
      found.push({
        index: epoch.index,
        firstBlockHeight: BigInt(epoch.firstBlockHeight),
        firstBlockTimeMs: BigInt(epoch.firstBlockTime),
        firstCoreBlockHeight: epoch.firstCoreBlockHeight,
        feeMultiplierPermille: BigInt(epoch.feeMultiplierPermille),
        protocolVersion: epoch.protocolVersion,
      });
    }
    return found;
  });
}

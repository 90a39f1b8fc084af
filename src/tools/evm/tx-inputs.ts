import { z } from 'zod';
import { DEFAULT_MAX_FEE_WEI } from '../../domain/evm/amount.js';
import { EvmAccount, Wei } from '../fields.js';

// The inputs the EVM transaction tools share: the sender, waiting for the receipt, the fee cap.

const DEFAULT_WAIT_SECONDS = 120;

export const From = EvmAccount.describe('The sending account. A keystore address or alias.');
export const Wait = z.boolean().default(false).describe('Wait for the receipt. With progress, before answering.');
export const WaitSeconds = z
  .int()
  .min(1)
  .max(3600)
  .default(DEFAULT_WAIT_SECONDS)
  .describe(`Seconds to wait. ${DEFAULT_WAIT_SECONDS} by default; then the status stays pending.`);
export const MaxFee = Wei.optional().describe(
  `A fee cap in wei. Refuse (POLICY_VIOLATION, nothing signed or sent) if gas limit × max fee per gas exceeds it; ${DEFAULT_MAX_FEE_WEI} (0.01 ether) when omitted.`,
);

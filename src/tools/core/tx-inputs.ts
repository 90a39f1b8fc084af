import { DEFAULT_MAX_FEE_DUFFS, parseDuffs } from '../../domain/dash/amount.js';
import { Duffs, DuffsPerKb } from '../fields.js';

// The fee inputs of the Dash transaction tools, and their parsing.

export const FeeRate = DuffsPerKb.optional().describe(
  "Duffs per 1000 bytes. The fee rate; 1000 (Dash's minimum relay fee) when omitted.",
);
export const MaxFee = Duffs.optional().describe(
  `A fee cap in duffs. Refuse to send if the fee is above it; ${DEFAULT_MAX_FEE_DUFFS} (0.01 DASH) when omitted.`,
);

export const optionalDuffs = (value: string | undefined, field: string): bigint | undefined =>
  value === undefined ? undefined : parseDuffs(value, field);

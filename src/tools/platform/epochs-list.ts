import { z } from 'zod';
import { defineTool } from '../define.js';
import { describedWithBrief } from '../lean-schema.js';
import { OptionalPlatformNetwork } from './platform-fields.js';

/** At most this many epochs a call returns (Platform's own most). */
const MAX_EPOCHS = 100;

export const platformEpochsList = defineTool({
  name: 'platform_epochs_list',
  group: 'platform_identity',
  title: 'Platform epochs',
  summary: 'List Platform epochs: first block, fees, protocol',
  description: [
    "Lists Dash Platform's epochs from start_epoch, proved: each one's index, first block (height,",
    'time, Core chain height), fee multiplier and protocol version. Up to count of them, ascending',
    '(or descending, back from start_epoch). An epoch that has not begun is not listed. An answer',
    'that does not check is BACKEND_INVALID, never shown.',
    '',
    'Example: wallet platform-epochs-list --start-epoch 0 --count 10',
  ].join('\n'),
  input: () =>
    z.strictObject({
      start_epoch: describedWithBrief(
        z.int().min(0).max(65535).optional(),
        'The first epoch listed (its index); 0 when omitted.',
        'Default: 0',
      ),
      count: describedWithBrief(
        z.int().min(1).max(MAX_EPOCHS).optional(),
        `At most this many epochs (1 to ${MAX_EPOCHS}); 10 when omitted.`,
        'Default: 10',
      ),
      order: describedWithBrief(
        z.enum(['asc', 'desc']).optional(),
        'asc: start_epoch and later ones; desc: start_epoch and earlier ones. asc when omitted.',
        'Default: asc',
      ),
      network: OptionalPlatformNetwork,
    }),
  output: () =>
    z.object({
      network: z.string().describe('The Platform network asked.'),
      epochs: z
        .array(
          z.object({
            index: z.int().describe("The epoch's index."),
            first_block_height: z.string().describe('The height of its first Platform block (digits).'),
            first_block_time: z.string().describe('When its first block was made (ISO 8601, UTC).'),
            first_core_block_height: z.int().describe('The Core chain-locked height at its first block.'),
            fee_multiplier: z.number().describe('Its fee multiplier (1 is the base fee).'),
            protocol_version: z.int().describe('The Platform protocol version it ran.'),
          }),
        )
        .describe('The epochs, in the order asked.'),
    }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  handler: async ({ start_epoch, count, order, network }, { services }) => {
    const { platformNetwork } = await import('../../domain/platform/network.js');
    const { fetchEpochs } = await import('../../domain/platform/epochs.js');
    const resolved = platformNetwork(await services.platformNetworks(), network);
    const epochs = await fetchEpochs(resolved, {
      startEpoch: start_epoch ?? 0,
      count: count ?? 10,
      ascending: (order ?? 'asc') === 'asc',
    });
    return {
      network: resolved.network,
      epochs: epochs.map((epoch) => ({
        index: epoch.index,
        first_block_height: epoch.firstBlockHeight.toString(),
        first_block_time: new Date(Number(epoch.firstBlockTimeMs)).toISOString(),
        first_core_block_height: epoch.firstCoreBlockHeight,
        fee_multiplier: Number(epoch.feeMultiplierPermille) / 1000,
        protocol_version: epoch.protocolVersion,
      })),
    };
  },
});

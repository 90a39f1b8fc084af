import { z } from 'zod';
import { CHAINS } from '../domain/config/networks.js';

/**
 * Field types shared by tools, so the same thing has the same name, shape and description
 * everywhere. Add a field here before a second tool needs it.
 */

export const Chain = z.enum(CHAINS).describe('The chain: core (Dash Core) or evm (Ethereum and EVM chains).');

export const ToolName = z
  .string()
  .min(1)
  .max(128)
  .describe('A tool name as in tools/list, e.g. core_address_create (the CLI command with - for _ works too).');

export const JsonSchemaObject = z.record(z.string(), z.unknown());

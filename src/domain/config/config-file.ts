import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { hasSystemCode, WalletError } from '../errors.js';
import { CORE_BACKENDS, CORE_NETWORKS } from './networks.js';

export const CONFIG_FILE_NAME = 'config.json';

const NetworkName = z.string().regex(/^[a-z][a-z0-9-]*$/, 'lower-case letters, digits and dashes');
const HttpUrl = z.url({ protocol: /^https?$/ });

const CoreNetworkConfig = z.strictObject({
  backend: z.enum(CORE_BACKENDS).optional(),
  url: HttpUrl.optional(),
  cookie_file: z.string().min(1).optional(),
});

const EvmNetworkConfig = z.strictObject({
  url: HttpUrl.optional(),
  chain_id: z.int().positive().optional(),
});

/** The config file's schema. Every section and field is optional; unknown keys are mistakes. */
export const ConfigFileSchema = z.strictObject({
  core: z
    .strictObject({
      default_network: z.enum(CORE_NETWORKS).optional(),
      networks: z.partialRecord(z.enum(CORE_NETWORKS), CoreNetworkConfig).optional(),
    })
    .optional(),
  evm: z
    .strictObject({
      default_network: NetworkName.optional(),
      networks: z.record(NetworkName, EvmNetworkConfig).optional(),
    })
    .optional(),
});

export type ConfigFile = z.infer<typeof ConfigFileSchema>;

/**
 * Reads `<dataDir>/config.json`. A missing file is an empty config; a malformed one is an
 * `INVALID_PARAM` error naming the file and the first bad field (values are never echoed: the
 * file may hold credentials).
 */
export async function readConfigFile(dataDir: string): Promise<ConfigFile> {
  const path = join(dataDir, CONFIG_FILE_NAME);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (hasSystemCode(error, 'ENOENT')) return {};
    throw new WalletError('INVALID_PARAM', `Cannot read the config file ${path}.`, { cause: error });
  }
  return parseConfigText(text, path);
}

export function parseConfigText(text: string, path: string): ConfigFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new WalletError('INVALID_PARAM', `The config file ${path} is not valid JSON.`, {
      hint: 'Fix the file or remove it to use the defaults.',
      cause: error,
    });
  }
  const parsed = ConfigFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(top level)';
    throw new WalletError(
      'INVALID_PARAM',
      `The config file ${path} is invalid at ${where}: ${issue?.message ?? 'invalid'}.`,
      { hint: 'See docs/CLI.md for the config file format.', cause: parsed.error },
    );
  }
  return parsed.data;
}

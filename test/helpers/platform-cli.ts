/**
 * The Platform tools' CLI tests (test/tools/platform/): a data directory whose config names a fake
 * DAPI (test/helpers/platform-dapi.ts) as Platform network `local`, and the CLI run in-process with
 * its clock at the recording's time, so the real SDK verifies every proof as it was recorded.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeDapi, type FakeDapi, type Tamper, type VectorName } from './platform-dapi.js';
import { tempHome, wallet } from './io.js';
import { withClockAt } from './shifted-clock.js';

/** One recording session: identities, their balances and keys, tokens, epochs. */
export const IDENTITY_SESSION: VectorName[] = [
  'identity',
  'identityBalance',
  'tokenBalances',
  'identityByKeyHash',
  'tokenStatuses',
  'tokenTotalSupply',
  'epochFirst',
  'epochsFrom193',
];
/** Another: the DPNS contract and its documents. */
export const DPNS_SESSION: VectorName[] = ['contract', 'documentsList', 'documentById'];

/** A data directory whose config.json names the fake DAPI as Platform network `local`, the default. */
export function homeFor(url: string): string {
  const home = tempHome();
  const config = {
    platform: { default_network: 'local', networks: { local: { dapi_addresses: [url], quorum_url: url } } },
  };
  writeFileSync(join(home, 'config.json'), JSON.stringify(config), { mode: 0o600 });
  return home;
}

/** The CLI with `--json`, its clock at the recording's; `json` is the parsed result of a success. */
export async function cli(dapi: FakeDapi, home: string, argv: string[]) {
  const result = await withClockAt(dapi.timeMs, () => wallet([...argv, '--json'], { home }));
  return { ...result, json: result.code === 0 ? (JSON.parse(result.stdout) as Record<string, unknown>) : undefined };
}

/** Runs `test` on a fake DAPI of `session` and a data directory naming it, both gone after. */
export async function onFakePlatform(
  session: readonly VectorName[],
  test: (dapi: FakeDapi, home: string) => Promise<void>,
  tamper?: Tamper,
): Promise<void> {
  const dapi = await startFakeDapi(session, tamper);
  const home = homeFor(dapi.url);
  try {
    await test(dapi, home);
  } finally {
    await dapi.close();
    rmSync(home, { recursive: true, force: true });
  }
}

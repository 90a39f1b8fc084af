/**
 * A child process for crash-safety.test.ts, meant to be SIGKILLed at a random moment.
 *
 * `node crash-worker.js loop <dataDir> <passphraseFile> <logFile> <seed> <tag> <fast|mixed>` prints
 * `ready` once loaded, waits for a line `go` on stdin, then writes the keystore through the domain API until it is killed: receive and change addresses and EVM
 * accounts of the wallet `shared` (fast: a lock, a read and an atomic write each), and in `mixed`
 * also new wallets, imported EVM keys and deletions (slow: scrypt). Each result is reported only
 * once the call has returned, as one JSON line appended to `logFile` and fsynced, so every index
 * in the log is one this process really received. A deletion is announced before it starts.
 * After its first result it prints `progress` (the parent may time its kill from there).
 *
 * `node crash-worker.js hold-lock <dir>` takes the keystore's writer lock of `dir`, prints
 * `holding`, and keeps it until killed.
 */
import { randomBytes } from 'node:crypto';
import { fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { createAddress } from '../../src/domain/dash/addresses.js';
import { createWallet, deleteWallet } from '../../src/domain/wallet/wallets.js';
import { WalletError } from '../../src/domain/errors.js';
import { createAccount, importAccount } from '../../src/domain/evm/accounts.js';
import { withLock } from '../../src/domain/keystore/lock.js';
import { WalletServices } from '../../src/domain/services.js';
import { SHARED_ALIAS, TEMP_PREFIX, type CrashReport } from './crash-log.js';
import { seededRandom } from './seeded.js';

async function holdLock(dir: string): Promise<void> {
  await withLock(dir, async () => {
    process.stdout.write('holding\n');
    await new Promise<never>(() => setInterval(() => undefined, 60_000));
  });
}

async function loop(args: string[]): Promise<void> {
  const [dataDir = '', passphraseFile = '', logFile = '', seedText = '0', tag = 'x', profile = 'fast'] = args;
  const passphrase = readFileSync(passphraseFile, 'utf8').replace(/\r?\n$/, '');
  const services = new WalletServices({ dataDir, passphrase, env: {} });
  const random = seededRandom(Number(seedText));
  const log = openSync(logFile, 'a', 0o600);
  let progressed = false;
  const report = (line: CrashReport): void => {
    writeSync(log, `${JSON.stringify(line)}\n`);
    fsyncSync(log);
    if (!progressed && line.op !== 'error' && line.op !== 'delete-intent') {
      progressed = true;
      process.stdout.write('progress\n');
    }
  };
  const slow = profile === 'mixed';
  // Loading the modules takes most of a second: the parent starts workers early, and they touch
  // nothing until it says go (then it times its kill).
  process.stdout.write('ready\n');
  await new Promise<void>((resolve) => {
    let said = '';
    process.stdin.on('data', (chunk: Buffer) => {
      said += chunk.toString('utf8');
      if (said.includes('go\n')) resolve();
    });
  });
  for (let n = 0; ; n++) {
    const roll = random();
    try {
      if (slow && roll < 0.25) {
        const alias = `${TEMP_PREFIX}${tag}-${n}`;
        const entry = await createWallet(services, { alias, network: 'regtest', words: 12 });
        report({ op: 'created', alias, id: entry.id });
      } else if (slow && roll < 0.4) {
        const account = await importAccount(services, {
          privateKey: randomBytes(32).toString('hex'),
          keystoreJson: undefined,
          keystorePassword: undefined,
          alias: null,
        });
        report({ op: 'imported', address: account.address });
      } else if (slow && roll < 0.5) {
        const { entries } = await services.keystore.list();
        const candidates = entries.filter((entry) => entry.alias.startsWith(TEMP_PREFIX));
        const target = candidates[Math.floor(random() * candidates.length)];
        if (target) {
          report({ op: 'delete-intent', alias: target.alias });
          await deleteWallet(services, { walletId: target.alias, network: 'regtest', confirmFingerprint: target.id });
          report({ op: 'deleted', alias: target.alias });
        }
      } else if (roll < 0.6) {
        const address = await createAddress(services, SHARED_ALIAS);
        report({ op: 'receive', index: address.index, address: address.address });
      } else if (roll < 0.8) {
        const entry = await services.keystore.resolve(SHARED_ALIAS);
        const { first } = await services.keystore.reserve(entry, 'change');
        report({ op: 'change', index: first });
      } else {
        const account = await createAccount(services, { walletId: SHARED_ALIAS, alias: null });
        report({ op: 'evm', index: account.index ?? -1, address: account.address });
      }
    } catch (error) {
      const code = error instanceof WalletError ? error.code : 'THROWN';
      report({ op: 'error', code, message: error instanceof Error ? error.message : String(error) });
      // A wallet deleted by another worker meanwhile is expected; anything else is a finding.
      if (code !== 'WALLET_NOT_FOUND') process.exit(1);
    }
  }
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === 'hold-lock') await holdLock(rest[0] ?? '');
else if (mode === 'loop') await loop(rest);
else {
  process.stderr.write(`unknown mode ${mode ?? '(none)'}\n`);
  process.exit(2);
}

/**
 * One keystore, many writers, real coins. On a real regtest node (Debian's litecoind standing in
 * for Dash Core, as in test/e2e/litecoind-regtest.test.ts) one wallet is funded with a few mature
 * coinbase coins; then, all at once, several `node bin/wallet.js` processes and one long-running
 * `wallet serve` (driven by the SDK's MCP client over stdio) hand out receive addresses and pay
 * from the same wallet. There are more payments than coins, so payments must lose races.
 *
 * Checked afterwards: no address index handed out twice and none lost (the keystore's counters
 * equal what was handed out, every address is listed); no coin spent twice (every reported txid
 * is in the node's mempool and nothing else is, inputs per the node match the reported ones and
 * no outpoint appears twice); every payment that lost ended with a typed error, never INTERNAL, a
 * crash or a hang; after mining, the wallet's balance, the node's UTXO set and the payments add
 * up; the wallet still unlocks; the audit log has one whole line per payment; the funds are found
 * again from the mnemonic alone.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { generateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { addressScript, encodeAddress, requireAddress } from '../../src/domain/dash/address.js';
import { dashToDuffs } from '../../src/domain/dash/amount.js';
import { ERROR_META_KEY } from '../../src/shared/protocol-meta.js';
import { passphraseFileIn, tempHome, wallet } from '../helpers/io.js';
import { findLitecoind, startRegtestNode, type RegtestNode } from '../helpers/litecoind.js';
import { WALLET_BIN } from '../helpers/paths.js';
import { fundsSendArgs } from '../helpers/core-argv.js';

const binary = findLitecoind();
if (!binary) {
  console.error(
    '\n!!! SKIPPING the regtest concurrency tests: litecoind is not installed.\n!!! .ci/run installs it (apt-get install -y litecoind); install it to run these tests.\n',
  );
}

const PASSPHRASE = 'concurrency passphrase';
const BURN = 'raw(76a914000000000000000000000000000000000000000088ac)';
/** Coinbase coins mined to the wallet's first receive addresses. */
const FUNDED = 5;
/** CLI workers, each running three processes one after another: two address allocations and one payment. */
const CLI_WORKERS = 6;
const SERVE_ALLOCATIONS = 4;
const SERVE_SENDS = 3;
const SENDS = CLI_WORKERS + SERVE_SENDS;
/** A process or call taking longer than this is a hang. */
const HANG_MS = 90_000;

type InputRow = { txid: string; vout: number; address: string; amount_duffs: string };
type OutputRow = { address: string; amount_duffs: string; change: boolean };
type FundsSent = {
  sent: boolean;
  txid: string | null;
  fee_duffs: string;
  inputs: InputRow[];
  outputs: OutputRow[];
  change_address: string | null;
};
type AddressCreated = { address: string; index: number; path: string };

/** How one call ended, whichever surface made it. */
type Outcome<T> =
  { surface: string; ok: true; value: T } | { surface: string; ok: false; code: string; message: string };
type Payment = { amount: bigint; outcome: Outcome<FundsSent> };

type ProcessRun = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; hung: boolean };

/** Runs `node bin/wallet.js <args>` as its own process; kills it (by its pid) when it hangs. */
function runProcess(args: string[], env: Record<string, string>): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WALLET_BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let hung = false;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      hung = true;
      child.kill('SIGKILL');
    }, HANG_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, hung });
    });
  });
}

/** A CLI run as an outcome: JSON on success, the error line's code otherwise; anything else fails the test. */
function cliOutcome<T>(surface: string, args: string[], run: ProcessRun): Outcome<T> {
  const shown = `${surface}: wallet ${args.join(' ')}`;
  assert.equal(run.hung, false, `${shown} hung (killed after ${HANG_MS} ms); stderr: ${run.stderr}`);
  if (run.code === 0) return { surface, ok: true, value: JSON.parse(run.stdout) as T };
  const line = /^error: ([A-Z_]+): (.*)$/m.exec(run.stderr);
  assert.ok(line?.[1] && line[2] !== undefined, `${shown} exited ${run.code} without a typed error: ${run.stderr}`);
  assert.doesNotMatch(run.stderr, /\n\s+at /, `${shown} printed a stack trace`);
  const code = line[1];
  const expectedExit = code === 'INVALID_PARAM' || code === 'NETWORK_REQUIRED' ? 2 : 1;
  assert.equal(run.code, expectedExit, `${shown}: ${code} should exit ${expectedExit}; stderr: ${run.stderr}`);
  return { surface, ok: false, code, message: line[2] };
}

/** A tool call over `wallet serve` as an outcome; a protocol failure (or a timeout) fails the test. */
async function serveOutcome<T>(
  client: Client,
  surface: string,
  name: string,
  args: Record<string, unknown>,
): Promise<Outcome<T>> {
  const result = await client.callTool({ name, arguments: args }, { timeout: HANG_MS });
  if (!result.isError) return { surface, ok: true, value: result.structuredContent as T };
  const meta = result._meta?.[ERROR_META_KEY] as { code?: string; message?: string } | undefined;
  const text = result.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
  assert.ok(meta?.code, `${surface}: ${name} failed without an error code: ${text}`);
  return { surface, ok: false, code: meta.code, message: meta.message ?? text };
}

/**
 * The ways a payment may lose a race, each a typed error that says what happened: the coins were
 * gone when it looked (INSUFFICIENT_FUNDS), the node refused a transaction whose coin another
 * payment had just spent, or the node was busy with another payment's UTXO scan.
 */
function lostCleanly(outcome: Outcome<FundsSent>): boolean {
  if (outcome.ok) return false;
  if (outcome.code === 'INSUFFICIENT_FUNDS') return true;
  if (outcome.code === 'INVALID_PARAM')
    return /The node rejected the transaction: .*(txn-mempool-conflict|missingorspent|missing-inputs)/.test(
      outcome.message,
    );
  if (outcome.code === 'BACKEND_UNAVAILABLE') return /busy with another UTXO scan/.test(outcome.message);
  return false;
}
const rejectedByNode = (outcome: Outcome<FundsSent>): boolean =>
  !outcome.ok && outcome.code === 'INVALID_PARAM' && /The node rejected the transaction/.test(outcome.message);

const outpoint = (txid: string, vout: number): string => `${txid}:${vout}`;
const scriptHex = (address: string): string =>
  Buffer.from(addressScript(requireAddress(address, 'regtest'))).toString('hex');

describe(
  'one wallet, many processes at once, on a real regtest node (litecoind)',
  { skip: binary ? false : 'litecoind is not installed', timeout: 240_000 },
  () => {
    let node: RegtestNode;
    let home: string;
    let passphraseFile: string;
    let env: Record<string, string>;
    let childEnv: Record<string, string>;
    let served: Client | undefined;
    let serveStderr = '';
    const mnemonic = generateMnemonic(wordlist, 128);
    const recipient = encodeAddress(randomBytes(20), 'p2pkh', 'regtest');
    const fundedCoins = new Set<string>();
    let startingBalance = 0n;

    const allocations: Outcome<AddressCreated>[] = [];
    const payments: Payment[] = [];
    const successes = (): Array<{ amount: bigint; sent: FundsSent; surface: string }> =>
      payments.flatMap(({ amount, outcome }) =>
        outcome.ok ? [{ amount, sent: outcome.value, surface: outcome.surface }] : [],
      );

    /** The in-process CLI, for the set-up and the checks: the burst itself runs real processes. */
    const ok = async (argv: string[], stdin?: string, walletHome = home): Promise<Record<string, unknown>> => {
      const result = await wallet([...argv, '--passphrase-file', passphraseFile, '--yes', '--json'], {
        home: walletHome,
        env,
        ...(stdin === undefined ? {} : { stdin }),
      });
      assert.equal(result.code, 0, `${argv[0]} failed: ${result.stderr}`);
      return JSON.parse(result.stdout) as Record<string, unknown>;
    };
    const keystoreEntry = (): { next_receive: number; next_change: number } => {
      const dir = join(home, 'keystore');
      const files = readdirSync(dir).filter((name) => /^[0-9a-f]{8}-regtest\.json$/.test(name));
      assert.equal(files.length, 1, `one wallet file in ${dir}: ${files.join(', ')}`);
      const entry = JSON.parse(readFileSync(join(dir, files[0] ?? ''), 'utf8')) as {
        account: { next_receive: number; next_change: number };
      };
      return entry.account;
    };
    /** What the node's UTXO set holds for these addresses, in duffs. */
    const nodeHolds = async (addresses: readonly string[]): Promise<bigint> => {
      const scan = await node.rpc<{ unspents: Array<{ amount: number }> }>('scantxoutset', [
        'start',
        addresses.map((address) => `raw(${scriptHex(address)})`),
      ]);
      return scan.unspents.reduce((sum, unspent) => sum + dashToDuffs(unspent.amount), 0n);
    };

    before(async () => {
      node = await startRegtestNode(binary ?? '');
      home = tempHome();
      passphraseFile = passphraseFileIn(home, PASSPHRASE);
      env = { WALLET_CORE_REGTEST_URL: node.url };
      childEnv = {
        PATH: process.env['PATH'] ?? '',
        HOME: home,
        NO_COLOR: '1',
        WALLET_HOME: home,
        WALLET_CORE_REGTEST_URL: node.url,
      };
      await ok(['core-wallet-import', '--alias', 'main', '--network', 'regtest', '--mnemonic-stdin'], mnemonic);
      for (let i = 0; i < FUNDED; i++) {
        const { address, index } = (await ok(['core-address-create', '--wallet-id', 'main'])) as AddressCreated;
        assert.equal(index, i);
        await node.rpc('generatetodescriptor', [1, `raw(${scriptHex(address)})`]);
      }
      await node.rpc('generatetodescriptor', [100, BURN]);
      const utxos = (await ok(['core-utxos-list', '--wallet-id', 'main'])) as {
        utxos: Array<{ txid: string; vout: number; amount_duffs: string; spendable: boolean }>;
      };
      assert.equal(utxos.utxos.length, FUNDED);
      for (const utxo of utxos.utxos) {
        assert.equal(utxo.spendable, true, 'mature');
        fundedCoins.add(outpoint(utxo.txid, utxo.vout));
      }
      startingBalance = BigInt((await ok(['core-balances-get', '--wallet-id', 'main']))['confirmed_duffs'] as string);
      assert.ok(startingBalance > 0n);

      // The agent behind `wallet serve` may pay alone (the owner's policy grants it room for the
      // whole burst), so its payments race the CLI's instead of waiting for an approval.
      writeFileSync(
        join(home, 'config.json'),
        JSON.stringify({
          core: {
            networks: {
              regtest: {
                policy: { autonomous: { max_per_tx_duffs: '2100000000000000', max_per_24h_duffs: '2100000000000000' } },
              },
            },
          },
        }),
      );
      // The long-running server, up before the burst: one MCP client over stdio.
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [WALLET_BIN, 'serve', '--passphrase-file', passphraseFile],
        env: childEnv,
        stderr: 'pipe',
      });
      transport.stderr?.on('data', (chunk: Buffer) => (serveStderr += chunk.toString()));
      served = new Client({ name: 'regtest-concurrency', version: '1' });
      await served.connect(transport);
    });
    after(async () => {
      await served?.close();
      await node?.stop();
      if (home) rmSync(home, { recursive: true, force: true });
    });

    it('allocations and payments from many processes at once all end cleanly', async () => {
      const started = Date.now();
      let nextAmount = 0;
      /** Distinct amounts, so each payment's output is recognisable on chain. */
      const amountFor = (): bigint => 100_000_000n + BigInt(++nextAmount) * 1_000n;
      const sendArgs = (amount: bigint) => ({
        wallet_id: 'main',
        network: 'regtest',
        address: recipient,
        amount_duffs: amount.toString(),
      });

      const cliAllocate = async (surface: string): Promise<void> => {
        const args = ['core-address-create', '--wallet-id', 'main', '--json'];
        allocations.push(cliOutcome<AddressCreated>(surface, args, await runProcess(args, childEnv)));
      };
      const cliSend = async (surface: string): Promise<void> => {
        const amount = amountFor();
        const args = fundsSendArgs(
          recipient,
          amount.toString(),
          ['--passphrase-file', passphraseFile, '--yes', '--json'],
          { network: 'regtest' },
        );
        payments.push({ amount, outcome: cliOutcome<FundsSent>(surface, args, await runProcess(args, childEnv)) });
      };
      const client = served ?? assert.fail('wallet serve is not running');
      const workers = Array.from({ length: CLI_WORKERS }, async (_, worker) => {
        const surface = `cli worker ${worker}`;
        // Half pay first, half allocate first, so payments overlap allocations and each other.
        if (worker % 2 === 0) await cliSend(surface);
        await cliAllocate(surface);
        if (worker % 2 === 1) await cliSend(surface);
        await cliAllocate(surface);
      });
      const serveAllocations = Array.from({ length: SERVE_ALLOCATIONS }, async () => {
        allocations.push(
          await serveOutcome<AddressCreated>(client, 'serve', 'core_address_create', { wallet_id: 'main' }),
        );
      });
      const serveSends = Array.from({ length: SERVE_SENDS }, async () => {
        const amount = amountFor();
        payments.push({
          amount,
          outcome: await serveOutcome<FundsSent>(client, 'serve', 'core_funds_send', sendArgs(amount)),
        });
      });
      await Promise.all([...workers, ...serveAllocations, ...serveSends]);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);

      const summary = payments.map(({ outcome }) =>
        outcome.ok
          ? `${outcome.surface}: sent ${outcome.value.txid}`
          : `${outcome.surface}: ${outcome.code} ${outcome.message}`,
      );
      console.error(`regtest-concurrency: burst took ${seconds} s\n  ${summary.join('\n  ')}`);

      assert.equal(allocations.length, 2 * CLI_WORKERS + SERVE_ALLOCATIONS);
      for (const allocation of allocations) {
        assert.ok(allocation.ok, `${allocation.surface}: core_address_create failed: ${JSON.stringify(allocation)}`);
      }
      assert.equal(payments.length, SENDS);
      for (const { outcome } of payments) {
        if (outcome.ok) {
          assert.equal(outcome.value.sent, true);
          assert.match(outcome.value.txid ?? '', /^[0-9a-f]{64}$/);
        } else {
          assert.ok(
            lostCleanly(outcome),
            `${outcome.surface}: a payment failed unexpectedly: ${outcome.code} ${outcome.message}`,
          );
        }
      }
      assert.ok(successes().length >= 1, 'at least one payment went through');
      assert.ok(successes().length <= FUNDED, 'no more payments than coins (unconfirmed change is not spendable here)');
      assert.doesNotMatch(serveStderr, /INTERNAL|\n\s+at /, `wallet serve's stderr: ${serveStderr}`);
    });

    it('never hands out an address index twice, and loses no allocation', async () => {
      const handedOut = allocations.flatMap((allocation) => (allocation.ok ? [allocation.value] : []));
      const indexes = handedOut.map((allocation) => allocation.index).sort((a, b) => a - b);
      assert.deepEqual(
        indexes,
        Array.from({ length: handedOut.length }, (_, i) => FUNDED + i),
        'every index once, none skipped',
      );
      assert.equal(new Set(handedOut.map((allocation) => allocation.address)).size, handedOut.length);

      const account = keystoreEntry();
      assert.equal(account.next_receive, FUNDED + handedOut.length, "the keystore's next receive index");
      // A change index is reserved by every payment that built a transaction: those sent, and those
      // the node refused; a payment that stopped before (no coins, a busy node) reserved none.
      const built = payments.filter(({ outcome }) => outcome.ok || rejectedByNode(outcome)).length;
      assert.equal(account.next_change, built, "the keystore's next change index");

      const listed = (await ok(['core-addresses-list', '--wallet-id', 'main'])) as {
        addresses: Array<{ address: string; index: number; chain: string }>;
      };
      const receive = new Map(listed.addresses.filter((a) => a.chain === 'receive').map((a) => [a.index, a.address]));
      const change = new Set(listed.addresses.filter((a) => a.chain === 'change').map((a) => a.address));
      assert.equal(receive.size, account.next_receive);
      assert.equal(change.size, account.next_change);
      for (const allocation of handedOut) assert.equal(receive.get(allocation.index), allocation.address);
      const changeAddresses = successes().map(({ sent }) => sent.change_address ?? assert.fail('no change'));
      assert.equal(new Set(changeAddresses).size, changeAddresses.length, 'no change address used twice');
      for (const address of changeAddresses) assert.ok(change.has(address), `${address} is listed as change`);

      const locks = readdirSync(join(home, 'keystore')).filter((name) => name.startsWith('.lock'));
      assert.deepEqual(locks, [], 'no lock left behind');
    });

    it('never spends a coin twice: the node has exactly the reported transactions, on distinct coins', async () => {
      const sent = successes();
      const mempool = await node.rpc<string[]>('getrawmempool');
      assert.deepEqual(
        [...mempool].sort(),
        sent.map(({ sent: tx }) => tx.txid ?? '').sort(),
        'the mempool holds every reported payment and nothing a failed call broadcast',
      );
      const spent = new Set<string>();
      for (const { amount, sent: tx, surface } of sent) {
        const txid = tx.txid ?? '';
        const decoded = await node.rpc<{
          vin: Array<{ txid: string; vout: number }>;
          vout: Array<{ value: number; scriptPubKey: { hex: string } }>;
        }>('getrawtransaction', [txid, true]);
        const inputs = decoded.vin.map((input) => outpoint(input.txid, input.vout)).sort();
        assert.deepEqual(
          inputs,
          tx.inputs.map((input) => outpoint(input.txid, input.vout)).sort(),
          `${surface}: the inputs the node sees are the ones reported`,
        );
        for (const input of inputs) {
          assert.ok(fundedCoins.has(input), `${input} is one of the funded coins`);
          assert.ok(!spent.has(input), `${input} spent twice`);
          spent.add(input);
        }
        const toRecipient = decoded.vout.filter((output) => output.scriptPubKey.hex === scriptHex(recipient));
        assert.deepEqual(
          toRecipient.map((output) => dashToDuffs(output.value)),
          [amount],
          `${surface}: pays what was asked`,
        );
        const entry = await node.rpc<{ fees: { base: number } }>('getmempoolentry', [txid]);
        assert.equal(dashToDuffs(entry.fees.base).toString(), tx.fee_duffs, `${surface}: the fee the node sees`);
      }
    });

    it('payments of one wallet wait for each other instead of signing conflicting transactions', () => {
      const conflicts = payments.flatMap(({ outcome }) =>
        rejectedByNode(outcome) && !outcome.ok ? [`${outcome.surface}: ${outcome.message}`] : [],
      );
      assert.deepEqual(conflicts, [], 'no payment signed and broadcast a transaction spending a coin already spent');
      assert.equal(successes().length, Math.min(SENDS, FUNDED), 'every payment that had a coin left went through');
    });

    it('reads at the same time all answer: a UTXO scan in progress is waited for, not an outage', async () => {
      const client = served ?? assert.fail('wallet serve is not running');
      const reads = await Promise.all(
        Array.from({ length: 4 }, () =>
          serveOutcome<{ confirmed_duffs: string }>(client, 'serve', 'core_balances_get', { wallet_id: 'main' }),
        ),
      );
      const failed = reads.flatMap((read) => (read.ok ? [] : [`${read.code}: ${read.message}`]));
      assert.deepEqual(failed, [], 'every concurrent balance read answered');
    });

    it('after a block, the balances the wallet reports add up with the node and the payments', async () => {
      const sent = successes();
      await node.rpc('generatetodescriptor', [1, BURN]);
      const block = await node.rpc<{ tx: string[] }>('getblock', [await node.rpc<string>('getbestblockhash')]);
      for (const { sent: tx } of sent) assert.ok(block.tx.includes(tx.txid ?? ''), `${tx.txid} mined`);
      assert.deepEqual(await node.rpc<string[]>('getrawmempool'), []);

      const paid = sent.reduce((sum, { amount }) => sum + amount, 0n);
      const fees = sent.reduce((sum, { sent: tx }) => sum + BigInt(tx.fee_duffs), 0n);
      const balance = await ok(['core-balances-get', '--wallet-id', 'main']);
      assert.equal(BigInt(balance['confirmed_duffs'] as string), startingBalance - paid - fees);
      assert.equal(await nodeHolds([recipient]), paid, 'the recipient holds exactly the payments');

      const listed = (await ok(['core-addresses-list', '--wallet-id', 'main'])) as {
        addresses: Array<{ address: string }>;
      };
      assert.equal(
        await nodeHolds(listed.addresses.map((a) => a.address)),
        startingBalance - paid - fees,
        "the node's UTXO set agrees with the wallet",
      );
      const utxos = (await ok(['core-utxos-list', '--wallet-id', 'main'])) as { utxos: Array<{ address: string }> };
      for (const { sent: tx } of sent) {
        assert.ok(
          utxos.utxos.some((utxo) => utxo.address === tx.change_address),
          `the change of ${tx.txid} is a coin of the wallet`,
        );
      }
    });

    it('the wallet still opens, the audit log is whole, and the funds are found again from the mnemonic', async () => {
      const listed = await ok(['core-wallets-list']);
      assert.deepEqual(listed['unreadable_files'], []);
      const address = allocations.find((allocation) => allocation.ok)?.value.address ?? assert.fail('no address');
      const signed = await ok([
        'core-message-sign',
        '--wallet-id',
        'main',
        '--address',
        address,
        '--message',
        'still mine',
      ]);
      const verified = await ok([
        'core-message-verify',
        '--address',
        address,
        '--message',
        'still mine',
        '--signature',
        signed['signature'] as string,
      ]);
      assert.equal(verified['valid'], true);

      const lines = readFileSync(join(home, 'audit.log'), 'utf8')
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as { tool: string; outcome: string; txid?: string });
      const sends = lines.filter((line) => line.tool === 'core_funds_send');
      assert.equal(sends.length, SENDS, 'one audit line per payment');
      assert.deepEqual(
        sends
          .filter((line) => line.outcome === 'sent')
          .map((line) => line.txid)
          .sort(),
        successes()
          .map(({ sent }) => sent.txid)
          .sort(),
      );

      const balance = await ok(['core-balances-get', '--wallet-id', 'main']);
      const elsewhere = tempHome();
      try {
        const restored = await ok(
          ['core-wallet-import', '--alias', 'restored', '--network', 'regtest', '--mnemonic-stdin'],
          mnemonic,
          elsewhere,
        );
        assert.equal(restored['discovery'], 'done');
        const found = await ok(['core-balances-get', '--wallet-id', 'restored'], undefined, elsewhere);
        assert.equal(found['confirmed_duffs'], balance['confirmed_duffs'], 'the mnemonic alone finds every coin');
      } finally {
        rmSync(elsewhere, { recursive: true, force: true });
      }
    });
  },
);

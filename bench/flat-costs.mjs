// Costs that should stay flat as a wallet grows (issue 19), measured in `wallet serve` over stdio
// against the fake Dash backend (test/fixtures/dash-backends.ts, compiled by `npm run build:test`):
//
// - core_addresses_list at 5,000 issued addresses: aim ≤ 100 ms;
// - core_message_sign with 20,000 issued addresses against 100: aim ≤ 1.25× (independent of them);
// - core_address_create with 200 wallets in the keystore against 1 wallet: aim ≤ 1.10×;
// - core_tx_create with 2,000 coins held: aim ≤ 150 ms, node RPCs growing with the inputs chosen;
// - a wallet file whose next_receive is 2^31: refused with a clear error, aim ≤ 1 s.
//
// The baselines (100 addresses, 1 wallet) run in the same run, interleaved with their subjects.
//
//   npm run build && npm run build:test && node bench/flat-costs.mjs [--runs 15] [--json]
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, WALLET_BIN, fail, startBench, temporaryDirectory, walletEnv } from './lib/common.mjs';
import { commandLine, fixed, machine, machineLines, summarize, table } from './lib/report.mjs';
import { StdioPeer } from './lib/jsonrpc.mjs';

const options = await startBench(
  {
    runs: { type: 'integer', default: 15, env: 'BENCH_RUNS', help: 'timed calls per row' },
  },
  'Usage: node bench/flat-costs.mjs [options]\n\nCosts that stay flat as wallets grow, in wallet serve against the fake Dash backend.',
);
const BUILD = join(ROOT, 'build');
if (!existsSync(join(BUILD, 'test', 'fixtures', 'dash-backends.js'))) {
  fail('bench/flat-costs.mjs needs the compiled test fixtures: run npm run build:test first.');
}
const load = (path) => import(pathToFileURL(join(BUILD, path)).href);
const { startDashBackends } = await load('test/fixtures/dash-backends.js');
const { WalletServices } = await load('src/domain/services.js');
const { importWallet } = await load('src/domain/wallet/wallets.js');
const { AccountWatcher } = await load('src/domain/dash/watcher.js');
const { decodeAddress, addressScript } = await load('src/domain/dash/address.js');

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const PASSPHRASE = 'flat-costs bench passphrase';

const backends = await startDashBackends({ chain: 'test' });
const homes = [];
process.on('exit', () => homes.forEach((home) => home.remove()));

/** A data dir with wallets made through the domain (no scrypt per extra wallet: cloned public files). */
async function makeHome({ wallets = 1, receive = 0, label }) {
  const home = temporaryDirectory(`wallet-bench-flat-${label}-`);
  homes.push(home);
  const services = new WalletServices({ dataDir: home.path, passphrase: PASSPHRASE, env: {} });
  let entry = await importWallet(services, {
    alias: 'main',
    network: 'testnet',
    mnemonic: ABANDON,
    mnemonicPassphrase: '',
  });
  if (receive > 0) entry = await services.keystore.advance(entry, { receive, change: 0 });
  const file = join(services.keystore.dir, `${entry.id}-testnet.json`);
  const stored = JSON.parse(readFileSync(file, 'utf8'));
  for (let n = 1; n < wallets; n++) {
    const id = n.toString(16).padStart(8, '0');
    writeFileSync(
      join(services.keystore.dir, `${id}-testnet.json`),
      JSON.stringify({ ...stored, id, alias: `w${n}` }),
      { mode: 0o600 },
    );
  }
  const passphraseFile = join(home.path, 'passphrase');
  writeFileSync(passphraseFile, PASSPHRASE, { mode: 0o600 });
  return { home, entry, file, passphraseFile };
}

async function serve(setup, label) {
  const env = { ...walletEnv(setup.home.path), WALLET_CORE_TESTNET_URL: backends.rpcUrl };
  const peer = new StdioPeer(
    label,
    process.execPath,
    [WALLET_BIN, 'serve', '--passphrase-file', setup.passphraseFile],
    {
      env,
    },
  );
  await peer.initialize();
  return { peer, env };
}

async function call(peer, name, args) {
  const started = performance.now();
  const { message } = await peer.request('tools/call', { name, arguments: args });
  const ms = performance.now() - started;
  if (message.result?.isError) return { ms, error: message.result._meta?.['wallet/error'] ?? message.result.content };
  return { ms, result: message.result?.structuredContent };
}

/** Times `runs` calls of each subject, interleaved, after one untimed call each (caches warm). */
async function compare(subjects, runs) {
  const samples = subjects.map(() => []);
  for (const subject of subjects) {
    const first = await subject.run();
    if (first.error) fail(`${subject.label}: ${JSON.stringify(first.error)}`);
    subject.first = first.ms;
  }
  for (let run = 0; run < runs; run++) {
    for (const [index, subject] of subjects.entries()) samples[index].push((await subject.run()).ms);
  }
  return samples.map((list) => summarize(list));
}

const rows = [];
const verdict = (met) => (met ? 'met' : 'NOT met');
const scriptOf = (address) => addressScript(decodeAddress(address));

// 1. core_addresses_list at 5,000 addresses.
const list5k = await makeHome({ receive: 5000, label: 'list' });
const listServe = await serve(list5k, 'list 5,000');
const [listStats] = await compare(
  [
    {
      label: 'core_addresses_list (5,000)',
      run: () => call(listServe.peer, 'core_addresses_list', { wallet_id: 'main' }),
    },
  ],
  options.runs,
);
rows.push({
  row: 'core_addresses_list, 5,000 addresses',
  median: listStats.median,
  p90: listStats.p90,
  aim: '≤ 100 ms',
  met: listStats.median <= 100,
});

// 2. core_message_sign: 20,000 issued addresses against 100.
const sign100 = await makeHome({ receive: 100, label: 'sign100' });
const sign20k = await makeHome({ receive: 20000, label: 'sign20k' });
const signSmall = await serve(sign100, 'sign 100');
const signLarge = await serve(sign20k, 'sign 20,000');
const signer = new AccountWatcher(sign100.entry.account.xpub, 'testnet').address('receive', 42);
const signArgs = { wallet_id: 'main', network: 'testnet', address: signer, message: 'flat' };
const [signSmallStats, signLargeStats] = await compare(
  [
    { label: 'sign 100', run: () => call(signSmall.peer, 'core_message_sign', signArgs) },
    { label: 'sign 20,000', run: () => call(signLarge.peer, 'core_message_sign', signArgs) },
  ],
  options.runs,
);
const signRatio = signLargeStats.median / signSmallStats.median;
rows.push({
  row: 'core_message_sign, 100 addresses (baseline)',
  median: signSmallStats.median,
  p90: signSmallStats.p90,
});
rows.push({
  row: 'core_message_sign, 20,000 addresses',
  median: signLargeStats.median,
  p90: signLargeStats.p90,
  ratio: signRatio,
  aim: '≤ 1.25× the baseline',
  met: signRatio <= 1.25,
});

// 3. core_address_create: 200 wallets against 1.
const one = await makeHome({ wallets: 1, label: 'one' });
const many = await makeHome({ wallets: 200, label: 'many' });
const oneServe = await serve(one, '1 wallet');
const manyServe = await serve(many, '200 wallets');
const createArgs = { wallet_id: 'main', network: 'testnet' };
const [oneStats, manyStats] = await compare(
  [
    { label: '1 wallet', run: () => call(oneServe.peer, 'core_address_create', createArgs) },
    { label: '200 wallets', run: () => call(manyServe.peer, 'core_address_create', createArgs) },
  ],
  options.runs,
);
const createRatio = manyStats.median / oneStats.median;
rows.push({ row: 'core_address_create, 1 wallet (baseline)', median: oneStats.median, p90: oneStats.p90 });
rows.push({
  row: 'core_address_create, 200 wallets',
  median: manyStats.median,
  p90: manyStats.p90,
  ratio: createRatio,
  aim: '≤ 1.10× the baseline',
  met: createRatio <= 1.1,
});

// 4. core_tx_create with 2,000 coins held (all at the tip: young, so each is one the node must vouch for).
const coins = await makeHome({ receive: 2000, label: 'coins' });
const watcher = new AccountWatcher(coins.entry.account.xpub, 'testnet');
for (let index = 0; index < 2000; index++) {
  const address = watcher.address('receive', index);
  backends.chain.fund(address, scriptOf(address), 100_000n + BigInt(index));
}
const txServe = await serve(coins, 'tx 2,000 coins');
const payee = watcher.address('receive', 0);
const txArgs = { wallet_id: 'main', network: 'testnet', outputs: [{ address: payee, amount_duffs: '50000' }] };
const txProbe = await call(txServe.peer, 'core_tx_create', txArgs);
if (txProbe.error) fail(`core_tx_create: ${JSON.stringify(txProbe.error)}`);
const before = backends.chain.requests.length;
const probe = await call(txServe.peer, 'core_tx_create', txArgs);
const rpcs = backends.chain.requests.slice(before);
const inputs = probe.result?.inputs?.length ?? NaN;
const [txStats] = await compare(
  [{ label: 'core_tx_create (2,000 coins)', run: () => call(txServe.peer, 'core_tx_create', txArgs) }],
  options.runs,
);
rows.push({
  row: `core_tx_create, 2,000 coins (${rpcs.length} RPCs, ${rpcs.filter((r) => r.method === 'gettxout').length} gettxout, ${inputs} input(s))`,
  median: txStats.median,
  p90: txStats.p90,
  aim: '≤ 150 ms; gettxout ≤ inputs',
  met: txStats.median <= 150 && rpcs.filter((r) => r.method === 'gettxout').length <= inputs,
});

// 5. An absurd index: refused at once.
const absurd = await makeHome({ label: 'absurd' });
const damaged = JSON.parse(readFileSync(absurd.file, 'utf8'));
damaged.account.next_receive = 2 ** 31;
writeFileSync(absurd.file, JSON.stringify(damaged));
const absurdServe = await serve(absurd, 'absurd index');
const refused = await call(absurdServe.peer, 'core_addresses_list', { wallet_id: absurd.entry.id });
rows.push({
  row: `next_receive 2^31: ${refused.error ? `refused (${String(refused.error.message ?? '').slice(0, 60)}…)` : 'ANSWERED'}`,
  median: refused.ms,
  p90: refused.ms,
  aim: 'refused, ≤ 1000 ms',
  met: Boolean(refused.error) && refused.ms <= 1000,
});

for (const served of [listServe, signSmall, signLarge, oneServe, manyServe, txServe, absurdServe])
  await served.peer.close();
await backends.close();

if (options.json) {
  console.log(JSON.stringify({ machine: machine(), runs: options.runs, rows }, null, 2));
} else {
  console.log(machineLines(machine()).join('\n'));
  console.log(
    `\n${commandLine([process.execPath, WALLET_BIN, 'serve', '--passphrase-file', '<0600 file>'], { WALLET_CORE_TESTNET_URL: '<fake node>' })}`,
  );
  console.log(`${options.runs} timed calls per row, interleaved with their baseline, after one untimed call.\n`);
  console.log(
    table(
      ['row', 'median ms', 'p90 ms', 'ratio', 'aim', ''],
      rows.map((row) => [
        row.row,
        fixed(row.median),
        fixed(row.p90),
        row.ratio === undefined ? '' : `${fixed(row.ratio, 2)}×`,
        row.aim ?? '',
        row.aim ? verdict(row.met) : '',
      ]),
    ),
  );
}

/**
 * The spending policy's parts without a node: the config format, the rules and their refusals,
 * the rolling ledger (pruning, reservations, a damaged file) and the audit log file.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { after, before, describe, it } from 'node:test';
import { parseConfigText } from '../../src/domain/config/config-file.js';
import { resolveNetworks } from '../../src/domain/config/endpoints.js';
import { encodeAddress } from '../../src/domain/dash/address.js';
import { WalletError } from '../../src/domain/errors.js';
import {
  appendAuditRecord,
  auditableFields,
  auditLine,
  auditLogPath,
  auditMessage,
  INVALID_AUDIT_VALUE,
} from '../../src/domain/policy/audit-log.js';
import { SpendLedger } from '../../src/domain/policy/spend-ledger.js';
import { countedSpend } from '../../src/domain/evm/spend.js';
import type { EvmPolicyConfig } from '../../src/domain/config/config-file.js';
import {
  broadcastReserved,
  checkDailyCap,
  checkSpend,
  evmPolicy,
  reserveSpend,
  type SpendingPolicy,
} from '../../src/domain/policy/spending-policy.js';
import { tempHome } from '../helpers/io.js';
import { ROOT } from '../helpers/paths.js';

const TESTNET_ADDRESS = encodeAddress(new Uint8Array(20).fill(7), 'p2pkh', 'testnet');
const MAINNET_ADDRESS = encodeAddress(new Uint8Array(20).fill(7), 'p2pkh', 'mainnet');
const EVM_LOWER = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
const EVM_CHECKSUMMED = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const HOUR = 60 * 60 * 1000;
const TXID = 'ab'.repeat(32);

const isPolicyViolation = (pattern: RegExp) => (error: unknown) =>
  error instanceof WalletError && error.code === 'POLICY_VIOLATION' && pattern.test(error.message);

function policyOf(config: string, chain: 'core' | 'evm', network: string): SpendingPolicy | null {
  const settings = resolveNetworks(parseConfigText(config, 'config.json'), {});
  const found = settings.networks.find((entry) => entry.chain === chain && entry.network === network);
  assert.ok(found, `${chain}.${network}`);
  return found.policy;
}

describe('policy in the config file', () => {
  it('reads a Dash and an EVM policy; a built-in EVM network needs no url for one', () => {
    const config = JSON.stringify({
      core: {
        networks: {
          testnet: {
            policy: {
              max_per_tx_duffs: '100000000',
              max_per_24h_duffs: '150000000',
              allowed_recipients: [TESTNET_ADDRESS],
              max_fee_duffs: '20000',
            },
          },
        },
      },
      evm: {
        networks: { local: { policy: { max_per_24h_wei: '3000000000000000000', allowed_recipients: [EVM_LOWER] } } },
      },
    });
    const core = policyOf(config, 'core', 'testnet');
    assert.deepEqual(
      [core?.unit, core?.maxPerTx, core?.maxPer24h, core?.maxFee, [...(core?.allowedRecipients ?? [])]],
      ['duffs', 100_000_000n, 150_000_000n, 20_000n, [TESTNET_ADDRESS]],
    );
    const evm = policyOf(config, 'evm', 'local');
    assert.deepEqual([evm?.unit, evm?.maxPerTx, evm?.maxPer24h], ['wei', null, 3n * 10n ** 18n]);
    assert.deepEqual([...(evm?.allowedRecipients ?? [])], [EVM_CHECKSUMMED], 'compared checksummed');
    assert.equal(policyOf(config, 'core', 'mainnet'), null, 'no policy: no rule');
    assert.equal(policyOf(config, 'evm', 'sepolia'), null);
  });

  it('reads every example of docs/POLICY.md', () => {
    const markdown = readFileSync(join(ROOT, 'docs', 'POLICY.md'), 'utf8');
    const examples = [...markdown.matchAll(/```json\n([\s\S]*?)```/g)]
      .map((match) => match[1] ?? '')
      .filter((example) => !example.includes('"format"'));
    assert.ok(examples.length >= 3, 'the two configs of the default posture and the rules example');
    for (const example of examples) parseConfigText(example, 'docs/POLICY.md');
    const [assistant, bot] = examples;
    assert.equal(policyOf(assistant ?? '', 'evm', 'mainnet')?.autonomy, null, 'the assistant has no autonomy');
    const autonomous = policyOf(bot ?? '', 'evm', 'mainnet');
    assert.deepEqual(autonomous?.autonomy, { maxPerTx: 10n ** 16n, maxPer24h: 5n * 10n ** 16n });
    const usdc = autonomous?.tokens.get('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48');
    assert.deepEqual([usdc?.maxPerTx, usdc?.autonomy?.maxPerTx], [100_000_000n, 5_000_000n]);
    const rules = examples.find((example) => example.includes('XgjBof7tWXH8jNXY4rRb1rdNUmDK3aNNNK')) ?? '';
    assert.deepEqual(
      [...(policyOf(rules, 'core', 'mainnet')?.allowedRecipients ?? [])],
      ['XgjBof7tWXH8jNXY4rRb1rdNUmDK3aNNNK'],
    );
    assert.equal(policyOf(rules, 'evm', 'mainnet')?.maxFee, 2_000_000_000_000_000n);
  });

  it('refuses a bad rule, naming its path and never echoing the value', () => {
    const bad: [unknown, RegExp][] = [
      [
        { core: { networks: { testnet: { policy: { allowed_recipients: [MAINNET_ADDRESS] } } } } },
        /core\.networks\.testnet\.policy\.allowed_recipients\.0: a Dash testnet address/,
      ],
      [
        { evm: { networks: { local: { policy: { allowed_recipients: [EVM_CHECKSUMMED.replace('C5', 'c5')] } } } } },
        /evm\.networks\.local\.policy\.allowed_recipients\.0: an EVM address/,
      ],
      [
        { core: { networks: { testnet: { policy: { max_per_tx_duffs: '1.5' } } } } },
        /max_per_tx_duffs: a whole number/,
      ],
      [{ core: { networks: { testnet: { policy: { max_per_tx_duffs: 150000 } } } } }, /max_per_tx_duffs/],
      [{ evm: { networks: { local: { policy: { max_fee_duffs: '1' } } } } }, /evm\.networks\.local\.policy/],
      [{ core: { networks: { devnet: { policy: {} } } } }, /invalid at core\.networks/],
    ];
    for (const [config, pattern] of bad) {
      assert.throws(
        () => parseConfigText(JSON.stringify(config), '/d/config.json'),
        (error: unknown) =>
          error instanceof WalletError &&
          error.code === 'INVALID_PARAM' &&
          pattern.test(error.message) &&
          !error.message.includes(MAINNET_ADDRESS),
        JSON.stringify(config),
      );
    }
    assert.throws(
      () => parseConfigText('{"core":{"networks":{"testnet":{"policy":{"max_fee_duffs":"x"}}}}}', 'c.json'),
      (error: unknown) => error instanceof WalletError && /docs\/POLICY\.md/.test(error.hint ?? ''),
    );
  });
});

describe('policy rules', () => {
  const policy: SpendingPolicy = {
    chain: 'evm',
    network: 'local',
    unit: 'wei',
    maxPerTx: 1000n,
    maxPer24h: 2500n,
    allowedRecipients: new Set([EVM_CHECKSUMMED]),
    maxFee: null,
    autonomy: null,
    tokens: new Map(),
    allowedHosts: null,
    ledger: 'chain-31337',
  };

  it('names the refused rule by its config path', () => {
    checkSpend(policy, { amount: 1000n, recipients: [{ address: EVM_CHECKSUMMED, what: 'to' }] });
    assert.throws(
      () => checkSpend(policy, { amount: 1001n, recipients: [{ address: EVM_CHECKSUMMED, what: 'to' }] }),
      isPolicyViolation(
        /^Refused by policy evm\.networks\.local\.policy\.max_per_tx_wei: .*1001 wei.*Nothing was signed or sent\.$/,
      ),
    );
    assert.throws(
      () => checkSpend(policy, { amount: 1n, recipients: [{ address: `0x${'11'.repeat(20)}`, what: 'to' }] }),
      isPolicyViolation(/policy\.allowed_recipients: 0x1111.* \(to\) is not an allowed recipient/),
    );
    assert.throws(
      () => checkSpend(policy, { amount: 0n, recipients: [{ address: null, what: 'a contract deployment (no to)' }] }),
      isPolicyViolation(/allowed_recipients: a contract deployment \(no to\) has no address/),
    );
    checkSpend(null, { amount: 10n ** 30n, recipients: [{ address: null, what: 'anything' }] });
  });
});

describe('token calls, decoded as the token contract decodes them (issue 36)', () => {
  const TOKEN = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
  const RECIPIENT = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC';
  const policy = evmPolicy('local', 31337, {
    tokens: { [TOKEN]: { max_per_tx: '100', max_per_24h: '1000' } },
  } as EvmPolicyConfig);
  const transfer = encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [RECIPIENT, 1_000_000n] });

  it('a transfer with bytes after its arguments is counted, and the token cap refuses it', () => {
    for (const data of [`${transfer}00`, `${transfer}${'00'.repeat(32)}`] as Hex[]) {
      const spend = countedSpend({ to: TOKEN, value: 0n, data });
      assert.deepEqual(
        spend.tokens?.map((move) => [move.kind, move.amount]),
        [['transfer', 1_000_000n]],
      );
      assert.equal(spend.unreadable, undefined);
      assert.throws(
        () => checkSpend(policy, spend),
        isPolicyViolation(/policy\.tokens\..*\.max_per_tx: 1000000 base units of token .* is above the cap of 100/),
      );
    }
  });

  it('a capped token gets no call the wallet cannot read; another contract may, with a human yes', () => {
    // DAI's push(address,uint256) moves tokens with a selector the wallet does not decode.
    const push =
      `0xb753a98c${RECIPIENT.slice(2).toLowerCase().padStart(64, '0')}${1_000_000n.toString(16).padStart(64, '0')}` as Hex;
    const toToken = countedSpend({ to: TOKEN, value: 0n, data: push });
    assert.ok(toToken.unreadable !== undefined);
    assert.throws(
      () => checkSpend(policy, toToken),
      isPolicyViolation(
        /^Refused by policy evm\.networks\.local\.policy\.tokens\.0x5FbDB2315678afecb367f032d93F642f64180aa3: its calldata is a contract call the wallet cannot read/,
      ),
    );
    const elsewhere = countedSpend({ to: RECIPIENT, value: 0n, data: push });
    checkSpend(policy, elsewhere);
  });

  it('a token call whose arguments do not decode is refused before any policy or approval', () => {
    for (const data of [transfer.slice(0, 74), transfer.slice(0, -2)] as Hex[]) {
      assert.throws(
        () => countedSpend({ to: TOKEN, value: 0n, data }),
        (error: unknown) =>
          error instanceof WalletError &&
          error.code === 'INVALID_PARAM' &&
          /calls an ERC-20 function \(selector 0xa9059cbb\) with arguments that do not decode/.test(error.message),
      );
    }
  });
});

describe('the spend ledger', () => {
  let home: string;
  const policy: SpendingPolicy = {
    chain: 'core',
    network: 'regtest',
    unit: 'duffs',
    maxPerTx: null,
    maxPer24h: 1000n,
    allowedRecipients: null,
    maxFee: null,
    autonomy: null,
    tokens: new Map(),
    allowedHosts: null,
    ledger: 'regtest',
  };
  const ledger = () => new SpendLedger(home, 'core', 'regtest');
  const sign = (txid: string) => async () => ({ value: txid, txid });

  before(() => {
    home = tempHome();
  });
  after(() => rmSync(home, { recursive: true, force: true }));

  it('records a reservation before returning, once per key, in an owner-only file', async () => {
    const first = await reserveSpend(
      home,
      policy,
      { key: 'a', amount: 600n, recipients: [], authority: 'terminal' },
      sign('t1'),
    );
    assert.equal(first.value, 't1');
    assert.equal(statSync(ledger().path).mode & 0o777, 0o600);
    assert.equal(statSync(join(home, 'ledger')).mode & 0o777, 0o700);
    // The same transaction again (signed twice, or signed then sent) is counted once.
    await reserveSpend(home, policy, { key: 'a', amount: 600n, recipients: [], authority: 'terminal' }, sign('t1'));
    assert.deepEqual(
      (await ledger().recent()).map((entry) => [entry.key, entry.txid, entry.amount]),
      [['a', 't1', 600n]],
    );
    await assert.rejects(
      reserveSpend(home, policy, { key: 'b', amount: 401n, recipients: [], authority: 'terminal' }, () =>
        assert.fail('must not sign'),
      ),
      isPolicyViolation(/core\.networks\.regtest\.policy\.max_per_24h_duffs: .* to 0\.00001001 DASH \(1001 duffs\)/),
    );
    await assert.rejects(
      checkDailyCap(home, policy, { amount: 401n, recipients: [], authority: 'terminal' }),
      isPolicyViolation(/max_per_24h_duffs/),
    );
    await checkDailyCap(home, policy, { key: 'a', amount: 600n, recipients: [], authority: 'terminal' });
  });

  it('forgets a reservation whose broadcast was refused, keeps one whose outcome is unknown', async () => {
    const refused = await reserveSpend(
      home,
      policy,
      { key: 'r', amount: 100n, recipients: [], authority: 'terminal' },
      sign('t2'),
    );
    await assert.rejects(
      broadcastReserved(refused, () => Promise.reject(new WalletError('INVALID_PARAM', 'The node rejected it.'))),
      /rejected/,
    );
    assert.deepEqual(
      (await ledger().recent()).map((entry) => entry.key),
      ['a'],
    );
    const unknown = await reserveSpend(
      home,
      policy,
      { key: 'u', amount: 100n, recipients: [], authority: 'terminal' },
      sign('t3'),
    );
    await assert.rejects(
      broadcastReserved(unknown, () => Promise.reject(new WalletError('BACKEND_UNAVAILABLE', 'No answer.'))),
      /No answer/,
    );
    assert.deepEqual(
      (await ledger().recent()).map((entry) => entry.key),
      ['a', 'u'],
    );
  });

  it('drops entries older than 24 hours at the next change', async () => {
    const now = Date.now();
    const entry = (key: string, at: number) => ({ key, txid: null, amount: '400', time: new Date(at).toISOString() });
    writeFileSync(
      ledger().path,
      JSON.stringify({
        format: 'wallet-spend-ledger',
        version: 1,
        chain: 'core',
        network: 'regtest',
        entries: [entry('old', now - 25 * HOUR), entry('recent', now - 23 * HOUR)],
      }),
    );
    await reserveSpend(home, policy, { key: 'new', amount: 600n, recipients: [], authority: 'terminal' }, sign('t4'));
    const stored = JSON.parse(readFileSync(ledger().path, 'utf8')) as { entries: { key: string }[] };
    assert.deepEqual(
      stored.entries.map((stored) => stored.key),
      ['recent', 'new'],
    );
  });

  it('refuses every spend while the file is damaged, naming it; it is never reset to empty', async () => {
    const cases = ['{ not json', '{"format":"wallet-spend-ledger","version":1}', '[]'];
    for (const damaged of cases) {
      writeFileSync(ledger().path, damaged);
      const named = (error: unknown) =>
        error instanceof WalletError &&
        error.code === 'POLICY_VIOLATION' &&
        error.message.includes(ledger().path) &&
        /nothing was signed or sent/.test(error.message);
      await assert.rejects(
        reserveSpend(home, policy, { key: 'x', amount: 1n, recipients: [], authority: 'terminal' }, () =>
          assert.fail('must not sign'),
        ),
        named,
      );
      await assert.rejects(checkDailyCap(home, policy, { amount: 1n, recipients: [], authority: 'terminal' }), named);
      assert.equal(readFileSync(ledger().path, 'utf8'), damaged, 'left as it was');
    }
    const other = new SpendLedger(home, 'core', 'testnet');
    mkdirSync(join(home, 'ledger'), { recursive: true });
    writeFileSync(
      other.path,
      JSON.stringify({ format: 'wallet-spend-ledger', version: 1, chain: 'core', network: 'regtest', entries: [] }),
    );
    await assert.rejects(other.recent(), /it is the ledger of core\.regtest/);
  });

  it('is not touched without a 24-hour cap', async () => {
    const dir = tempHome();
    try {
      const value = await reserveSpend(
        dir,
        { ...policy, maxPer24h: null },
        { key: 'k', amount: 5n, recipients: [], authority: 'terminal' },
        sign('t'),
      );
      assert.equal(value.value, 't');
      assert.throws(() => statSync(join(dir, 'ledger')), /ENOENT/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the audit log file', () => {
  it('is created owner-only and appended to, one JSON line per record, undefined fields left out', async () => {
    const home = join(tempHome(), `data-${randomBytes(4).toString('hex')}`);
    try {
      await appendAuditRecord(home, {
        time: 't1',
        tool: 'core_tx_send',
        outcome: 'sent',
        txid: TXID,
        amount: undefined,
      });
      const first = readFileSync(auditLogPath(home), 'utf8');
      await appendAuditRecord(home, {
        time: 't2',
        tool: 'core_tx_send',
        outcome: 'error',
        network: 'testnet',
        error: { code: 'POLICY_VIOLATION', message: 'Refused.' },
      });
      const text = readFileSync(auditLogPath(home), 'utf8');
      assert.ok(text.startsWith(first), 'earlier lines are never rewritten');
      assert.deepEqual(
        text
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as unknown),
        [
          { time: 't1', tool: 'core_tx_send', outcome: 'sent', txid: TXID },
          {
            time: 't2',
            tool: 'core_tx_send',
            outcome: 'error',
            network: 'testnet',
            error: { code: 'POLICY_VIOLATION', message: 'Refused.' },
          },
        ],
      );
      assert.equal(statSync(auditLogPath(home)).mode & 0o777, 0o600);
      assert.equal(statSync(home).mode & 0o777, 0o700);
    } finally {
      rmSync(join(home, '..'), { recursive: true, force: true });
    }
  });
});

describe('the audit line holds only values that validated', () => {
  // Secret-shaped text a caller may put in the wrong field: a private key, a WIF, an xprv, a phrase.
  const KEY = `0x${'4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318'}`;
  const WIF = 'XBuXkpfmGwNhJQTqgyLwUBmRkuZcEfc1u7VAtb9WJXQPQTaa2fTK';
  const XPRV =
    'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi';
  const PHRASE = 'test test test test test test test test test test test junk';

  it('keeps addresses, names, digits and hashes as they are', () => {
    const fields = {
      network: 'testnet',
      wallet_id: 'main',
      from: EVM_CHECKSUMMED,
      amount: '150000',
      unit: 'duffs' as const,
      recipient: [TESTNET_ADDRESS, MAINNET_ADDRESS, EVM_LOWER, '(no address)'],
      fee: '226',
      txid: TXID,
      hash: `0x${TXID}`,
      typed_data_hash: `0x${TXID}`,
      dry_run: true,
      signed_only: true,
    };
    assert.deepEqual(auditableFields(fields), fields);
    assert.deepEqual(auditableFields({ wallet_id: '0a1b2c3d', from: 'payer', recipient: null }), {
      wallet_id: '0a1b2c3d',
      from: 'payer',
      recipient: null,
    });
    // A Dash message is signed by an address (core_message_sign), and its line names it.
    assert.deepEqual(auditableFields({ from: TESTNET_ADDRESS }), { from: TESTNET_ADDRESS });
    assert.deepEqual(auditableFields({ from: MAINNET_ADDRESS }), { from: MAINNET_ADDRESS });
  });

  it('writes (invalid) in place of a secret in any field, and drops unknown fields', () => {
    const line = auditLine({
      time: 't',
      tool: 'evm_funds_send',
      outcome: 'error',
      network: PHRASE,
      wallet_id: KEY.slice(2),
      from: KEY,
      amount: WIF,
      unit: XPRV as 'wei',
      recipient: [PHRASE, TESTNET_ADDRESS, WIF],
      fee: KEY,
      txid: XPRV,
      hash: WIF,
      typed_data_hash: PHRASE,
      ...({ data: KEY } as object),
    });
    assert.deepEqual(line, {
      time: 't',
      tool: 'evm_funds_send',
      outcome: 'error',
      network: INVALID_AUDIT_VALUE,
      wallet_id: INVALID_AUDIT_VALUE,
      from: INVALID_AUDIT_VALUE,
      amount: INVALID_AUDIT_VALUE,
      unit: INVALID_AUDIT_VALUE,
      recipient: [INVALID_AUDIT_VALUE, TESTNET_ADDRESS, INVALID_AUDIT_VALUE],
      fee: INVALID_AUDIT_VALUE,
      txid: INVALID_AUDIT_VALUE,
      hash: INVALID_AUDIT_VALUE,
      typed_data_hash: INVALID_AUDIT_VALUE,
    });
    const text = JSON.stringify(line);
    for (const secret of [KEY.slice(2), WIF, XPRV, 'test test']) assert.ok(!text.includes(secret), secret);
  });

  it('a host is a host name, an IP address or a saved stdio server, never a URL nor a key split into labels', () => {
    for (const host of ['api.example.com', '127.0.0.1', '::1', 'localhost', 'stdio:paid-tools', 'stdio:My_Server.2']) {
      assert.deepEqual(auditableFields({ host }), { host }, host);
    }
    const key = KEY.slice(2).toLowerCase();
    for (const host of [
      'https://api.example.com/report?key=1',
      `${key.slice(0, 32)}.${key.slice(32)}`,
      `${key.slice(0, 20)}.${key.slice(20, 40)}.${key.slice(40)}.example.com`,
      PHRASE,
      WIF,
      `stdio:${key}`,
      `stdio:${WIF}`,
      'stdio:npx -y some-server',
      'stdio:',
    ]) {
      assert.deepEqual(auditableFields({ host }), { host: INVALID_AUDIT_VALUE }, host);
    }
  });

  it('payment_signed is a boolean, else not written as given', () => {
    assert.deepEqual(auditableFields({ payment_signed: true }), { payment_signed: true });
    assert.deepEqual(auditableFields({ payment_signed: 'yes' as unknown as boolean }), {
      payment_signed: INVALID_AUDIT_VALUE,
    });
  });

  it('a Dash recipient must decode as a Dash address: a WIF-length or bad-checksum text does not', () => {
    const badChecksum = `${TESTNET_ADDRESS.slice(0, -1)}${TESTNET_ADDRESS.endsWith('1') ? '2' : '1'}`;
    assert.deepEqual(auditableFields({ recipient: badChecksum }), { recipient: INVALID_AUDIT_VALUE });
    assert.deepEqual(auditableFields({ recipient: WIF }), { recipient: INVALID_AUDIT_VALUE });
  });

  it('drops a hash that is quoted from the arguments: a hash is computed, a 64-hex argument may be a key', () => {
    const key = KEY.slice(2);
    assert.deepEqual(auditableFields({ network: 'local', hash: KEY, txid: key }, { signed_tx: KEY }), {
      network: 'local',
    });
    assert.deepEqual(
      auditableFields({ typed_data_hash: KEY }, { typed_data: { message: { note: `see ${key.toUpperCase()}` } } }),
      {},
    );
    assert.deepEqual(auditableFields({ hash: `0x${TXID}` }, { signed_tx: KEY }), { hash: `0x${TXID}` });
  });

  it('keeps an error message, with key-, WIF-, xprv- and phrase-shaped runs replaced', () => {
    const refusal =
      'Refused by policy evm.networks.local.policy.max_per_tx_wei: above the cap. Nothing was signed or sent.';
    assert.equal(auditMessage(refusal), refusal);
    const words = 'the wallet is not in the keystore and has no such address on this network today';
    assert.equal(auditMessage(words), words, 'English is not a phrase');
    assert.equal(
      auditMessage(`key ${KEY} or ${KEY.slice(2)} or ${WIF} or ${XPRV} given as address.`),
      'key (not shown) or (not shown) or (not shown) or (not shown) given as address.',
    );
    assert.equal(auditMessage(`to: ${PHRASE}. Check the field.`), 'to: (not shown). Check the field.');
    assert.equal(
      auditMessage(`a ${TESTNET_ADDRESS} and ${EVM_CHECKSUMMED}`),
      `a ${TESTNET_ADDRESS} and ${EVM_CHECKSUMMED}`,
    );
  });

  it('is what appendAuditRecord writes, whatever a caller hands it', async () => {
    const home = join(tempHome(), `data-${randomBytes(4).toString('hex')}`);
    try {
      await appendAuditRecord(home, {
        time: 't',
        tool: 'core_funds_send',
        outcome: 'error',
        recipient: WIF,
        from: KEY,
      });
      assert.deepEqual(JSON.parse(readFileSync(auditLogPath(home), 'utf8')), {
        time: 't',
        tool: 'core_funds_send',
        outcome: 'error',
        from: INVALID_AUDIT_VALUE,
        recipient: INVALID_AUDIT_VALUE,
      });
    } finally {
      rmSync(join(home, '..'), { recursive: true, force: true });
    }
  });
});

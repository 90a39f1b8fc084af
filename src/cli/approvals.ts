import type { Approval } from '../domain/policy/approvals.js';
import { asOwnerVerb } from './owner-errors.js';
import { askLine, Declined } from './confirm.js';
import { parseFlags, type CliFlag } from './global-flags.js';
import type { CliIo } from './io.js';
import { colorEnabled, createStyle, renderHuman, terminalSafe } from './render.js';
import { closestNames } from './suggest.js';
import { stopOnSignals, untilClosed } from './stop-signals.js';
import { rejectUnknownFlags } from './unknown-flags.js';
import { EXIT, UsageError } from './usage-error.js';

/** The subcommands of `wallet approvals`, for help and completion. */
export const APPROVALS_SUBCOMMANDS = ['list', 'approve', 'deny', 'open', 'passkey'] as const;
type Subcommand = (typeof APPROVALS_SUBCOMMANDS)[number];

export const APPROVALS_SUMMARIES: Readonly<Record<Subcommand, string>> = {
  list: 'The approvals agents wait for, with what each would sign',
  approve: 'Let one waiting call through, once (asks on this terminal)',
  deny: 'Refuse one waiting call',
  open: 'Serve the approval page on loopback and open it in a browser',
  passkey: 'Enroll, list or remove the passkeys every yes then takes (add|list|remove)',
};

/** The words of `wallet approvals passkey …`. */
const PASSKEY_ACTIONS = ['add', 'list', 'remove'] as const;
/** How long `passkey add` waits for the browser's enrolment. */
const ENROL_WAIT_MS = 10 * 60_000;

/** Every flag `wallet approvals …` takes. */
export const APPROVALS_FLAGS: readonly CliFlag[] = [
  { name: 'all', type: 'boolean', description: 'list: also the approvals decided or used in the last day.' },
  {
    name: 'browser',
    type: 'boolean',
    description: 'open, passkey add: --no-browser prints the link without opening a browser.',
  },
  {
    name: 'name',
    type: 'string',
    value: '<name>',
    description: 'passkey add: a name for the passkey (default: passkey).',
  },
  {
    name: 'passphrase-file',
    type: 'string',
    value: '<path>',
    description: 'passkey add, remove: the keystore passphrase from this owner-only file.',
  },
  {
    name: 'passphrase-stdin',
    type: 'boolean',
    description: 'passkey add, remove: the keystore passphrase from stdin.',
  },
  { name: 'json', type: 'boolean', description: 'Print the result as JSON.' },
  { name: 'color', type: 'boolean', description: 'Colour the output on a terminal.' },
  { name: 'debug', type: 'boolean', description: 'Show error causes and stack traces.' },
  { name: 'help', alias: 'h', type: 'boolean', description: 'Show help.' },
];

const HELP = `wallet approvals — answer the calls that agents wait on (wallet serve).

Usage:
  wallet approvals [list] [--all] [--json]   the approvals waiting, with what each would sign
  wallet approvals approve <id>              let that exact call through once (asks here, on a terminal)
  wallet approvals deny <id>                 refuse it; the agent's repeat is POLICY_VIOLATION
  wallet approvals open [<id>] [--no-browser]
                                             the approval page on 127.0.0.1 (until Ctrl-C): what each
                                             call would sign, with approve and deny buttons, and
                                             what was spent in the last 24 hours against each cap
  wallet approvals passkey add [--name <name>] [--no-browser]
                                             enroll a passkey on the page (asks the keystore
                                             passphrase first); from then on every yes takes one
  wallet approvals passkey list [--json]     the enrolled passkeys
  wallet approvals passkey remove <name>     remove one (asks the keystore passphrase)

An agent's call that signs or deletes, beyond what the policy lets it do alone, ends with
APPROVAL_REQUIRED and an id (ap-…). Approving lets the same call, with the same arguments,
through once; it expires after 15 minutes. These commands are never tools of wallet serve.
'open' prints a single-use link to the page (it opens a session in one browser) and opens it with
$BROWSER or the system's opener; wallet serve serves the same page and prints a link for each call
that waits.

Once a passkey is enrolled, a yes is a passkey's, on the page (user verification required): 'approve'
then opens the page, a click on Approve without a passkey approves nothing, and an MCP client's own
answer to the server's question approves nothing either. Adding or removing a passkey takes the
keystore passphrase (--passphrase-file, --passphrase-stdin, or the hidden prompt on a terminal).
`;

/**
 * `wallet approvals …`: the owner answers agents' approval requests in a terminal on the same
 * machine (same data directory). Approving needs a person at a terminal: without one it refuses.
 */
export async function runApprovals(argv: readonly string[], io: CliIo, dataDir: string): Promise<number> {
  // With a state store set, the passkeys are the store's (docs/REPLICAS.md).
  const { openSharedState } = await import('../domain/state/owner-verbs.js');
  const close = await asOwnerVerb(() => openSharedState({ dataDir, env: io.env }));
  try {
    return await runApprovalsHere(argv, io, dataDir);
  } finally {
    await close();
  }
}

async function runApprovalsHere(argv: readonly string[], io: CliIo, dataDir: string): Promise<number> {
  const parsed = parseFlags(argv, APPROVALS_FLAGS);
  const positionals = ((parsed['_'] as unknown[] | undefined) ?? []).map(String);
  const [word = 'list', ...words] = positionals.slice(positionals.indexOf('approvals') + 1);
  if (parsed['help'] === true || word === 'help') {
    io.stdout.write(HELP);
    return EXIT.ok;
  }
  const subcommand = APPROVALS_SUBCOMMANDS.find((candidate) => candidate === word);
  if (subcommand === undefined) {
    const near = closestNames(word, APPROVALS_SUBCOMMANDS);
    throw new UsageError(
      `Unknown subcommand 'approvals ${word}'.`,
      near.length > 0 ? `Did you mean 'approvals ${near.join("' or 'approvals ")}'?` : "See 'wallet approvals --help'.",
    );
  }
  rejectUnknownFlags({ ...parsed, _: [] }, APPROVALS_FLAGS, `approvals ${subcommand}`);
  const style = await createStyle(colorEnabled(typeof parsed['color'] === 'boolean' ? parsed['color'] : undefined, io));
  const json = parsed['json'] === true;
  const { ApprovalStore } = await import('../domain/policy/approvals.js');
  const store = new ApprovalStore(dataDir);
  if (subcommand === 'list') {
    if (words.length > 0) throw new UsageError(`approvals list takes no words; got '${terminalSafe(words[0] ?? '')}'.`);
    const approvals = (await asOwnerVerb(() => store.list())).filter(
      (approval) => parsed['all'] === true || approval.status === 'pending',
    );
    if (json) io.stdout.write(JSON.stringify({ approvals: approvals.map(publicView) }, null, 2) + '\n');
    else if (approvals.length === 0) io.stderr.write('No approvals are waiting.\n');
    else io.stdout.write(renderHuman(approvals.map(row), style));
    return EXIT.ok;
  }
  if (subcommand === 'open') return openPage(words, parsed['browser'] !== false, io, dataDir);
  if (subcommand === 'passkey') return runPasskey(words, parsed, json, io, dataDir, style);
  const [id, ...extra] = words;
  if (id === undefined)
    throw new UsageError(`approvals ${subcommand} needs an approval id (ap-…).`, "See 'wallet approvals'.");
  if (extra.length > 0) throw new UsageError(`approvals ${subcommand} takes one id.`);
  if (subcommand === 'approve') {
    const approval = await asOwnerVerb(() => store.pending(id));
    const { PasskeyStore } = await import('../domain/policy/passkeys.js');
    if (new PasskeyStore(dataDir).enrolled()) {
      // A yes is a passkey's now: the page asks for it; this terminal approves nothing.
      io.stderr.write(
        `A passkey is enrolled: approve ${approval.id} on the approval page with it (nothing was approved here).\n`,
      );
      return openPage([approval.id], parsed['browser'] !== false, io, dataDir);
    }
    // A yes must come from a person: an agent that can run commands has no terminal to answer on.
    if (!io.stderr.isTTY || !io.stdin.isTTY || io.stdin.readableEnded) {
      throw new UsageError(
        'approvals approve asks on a terminal, and there is none: nothing was approved.',
        'Run it yourself in a terminal; it shows what the call would sign first.',
      );
    }
    io.stderr.write(`${terminalSafe(approval.summary.text)}\n`);
    io.stderr.write(`Why it waits: ${terminalSafe(approval.summary.reason)}\n`);
    const answer = await askLine(io, `Approve ${approval.id}? [y/N] `);
    if (!/^(y|yes)$/i.test(answer.trim())) throw new Declined();
  }
  const decided = await asOwnerVerb(() =>
    store.decide(id, subcommand === 'approve' ? 'approved' : 'denied', 'terminal'),
  );
  if (json) io.stdout.write(JSON.stringify(publicView(decided), null, 2) + '\n');
  else
    io.stdout.write(
      subcommand === 'approve'
        ? `Approved ${decided.id}: the agent's same call goes through once, until ${decided.expires}.\n`
        : `Denied ${decided.id}: the agent's same call is refused.\n`,
    );
  return EXIT.ok;
}

/**
 * `wallet approvals open [<id>]`: serves the approval page on a free loopback port until
 * interrupted, prints its single-use link on stdout and opens it in a browser.
 */
async function openPage(words: readonly string[], browser: boolean, io: CliIo, dataDir: string): Promise<number> {
  const [id, ...extra] = words;
  if (extra.length > 0) throw new UsageError('approvals open takes at most one id.');
  if (id !== undefined && !/^ap-[a-z2-7]{10}$/.test(id)) {
    throw new UsageError(`'${terminalSafe(id.slice(0, 32))}' is not an approval id (ap-…).`, "See 'wallet approvals'.");
  }
  // Loaded only here: no other command pays for the page, its HTTP server or the browser opener.
  const { serveApprovalPage } = await import('../mcp/page/serve.js');
  const { openBrowser } = await import('./browser.js');
  const page = await serveApprovalPage({ dataDir, listen: { host: '127.0.0.1', port: 0 }, background: false });
  const link = page.link(id);
  io.stdout.write(`${link}\n`);
  io.stderr.write('The approval page: the link above works once. Ctrl-C stops the page.\n');
  if (browser && !(await openBrowser(link, io.env)))
    io.stderr.write('No browser could be started: open the link yourself.\n');
  await untilClosed(page);
  return EXIT.ok;
}

/** An approval as `--json` shows it (the digest binds the call; it tells a person nothing). */
function publicView(approval: Approval): Record<string, unknown> {
  const { digest: _digest, summary, ...rest } = approval;
  const { text: _text, ...facts } = summary;
  return { ...rest, ...facts };
}

function row(approval: Approval): Record<string, unknown> {
  const { summary } = approval;
  return {
    id: approval.id,
    status: approval.status,
    tool: summary.tool,
    network: summary.network ?? '',
    amount: summary.amount !== undefined && summary.unit ? `${summary.amount} ${summary.unit}` : '',
    to: [summary.recipient ?? []].flat().join(', '),
    expires: approval.expires,
  };
}

/**
 * `wallet approvals passkey add|list|remove`. Adding or removing one takes the keystore passphrase
 * here, at the terminal, so a process that can reach only the page (or only the agent's tools)
 * cannot enroll a passkey of its own, nor remove the owner's.
 */
async function runPasskey(
  words: readonly string[],
  parsed: Record<string, unknown>,
  json: boolean,
  io: CliIo,
  dataDir: string,
  style: Awaited<ReturnType<typeof createStyle>>,
): Promise<number> {
  const [action, ...rest] = words;
  const known = PASSKEY_ACTIONS.find((candidate) => candidate === action);
  if (known === undefined) {
    throw new UsageError(
      action === undefined
        ? 'approvals passkey needs add, list or remove.'
        : `Unknown subcommand 'approvals passkey ${terminalSafe(action.slice(0, 32))}'.`,
      "See 'wallet approvals --help'.",
    );
  }
  const { PasskeyStore, PASSKEY_NAME } = await import('../domain/policy/passkeys.js');
  const passkeys = new PasskeyStore(dataDir);
  if (known === 'list') {
    if (rest.length > 0) throw new UsageError('approvals passkey list takes no words.');
    const list = await asOwnerVerb(() => passkeys.list());
    const rows = list.map(({ public_key: _key, ...shown }) => shown);
    if (json) io.stdout.write(JSON.stringify({ passkeys: rows }, null, 2) + '\n');
    else if (rows.length === 0)
      io.stderr.write('No passkey is enrolled: a yes is given at a terminal or on the page without one.\n');
    else
      io.stdout.write(
        renderHuman(
          rows.map((row) => ({
            name: row.name,
            created: row.created,
            last_used: row.last_used ?? '',
            counter: row.counter,
          })),
          style,
        ),
      );
    return EXIT.ok;
  }
  if (known === 'remove') {
    const [which, ...extra] = rest;
    if (which === undefined || extra.length > 0) throw new UsageError('approvals passkey remove takes one name.');
    await ownerPassphrase(parsed, io, dataDir, 'removed');
    const removed = await asOwnerVerb(() => passkeys.remove(which));
    const left = (await passkeys.list()).length;
    if (json) io.stdout.write(JSON.stringify({ removed: removed.name, passkeys_left: left }, null, 2) + '\n');
    else
      io.stdout.write(
        `Removed the passkey ${removed.name}.${left === 0 ? ' No passkey is left: a yes is given at a terminal or on the page again.' : ''}\n`,
      );
    return EXIT.ok;
  }
  if (rest.length > 0) throw new UsageError('approvals passkey add takes no words; name it with --name.');
  const name = typeof parsed['name'] === 'string' ? parsed['name'] : 'passkey';
  if (!PASSKEY_NAME.test(name)) {
    throw new UsageError('A passkey name has 1 to 64 letters, digits, spaces, dots, dashes or underscores.');
  }
  if ((await asOwnerVerb(() => passkeys.list())).some((passkey) => passkey.name === name)) {
    throw new UsageError(`A passkey named '${name}' is already enrolled.`, 'Name this one with --name <name>.');
  }
  await ownerPassphrase(parsed, io, dataDir, 'added');
  const { serveApprovalPage } = await import('../mcp/page/serve.js');
  const { openBrowser } = await import('./browser.js');
  let enrolled: (passkey: { name: string; id: string }) => void = () => undefined;
  const added = new Promise<{ name: string; id: string }>((resolve) => (enrolled = resolve));
  const page = await serveApprovalPage({
    dataDir,
    listen: { host: '127.0.0.1', port: 0 },
    background: false,
    enrolment: { name, enrolled: (passkey) => enrolled(passkey) },
  });
  let timer: NodeJS.Timeout | undefined;
  const release = stopOnSignals(() => void page.close());
  try {
    const link = page.enrolLink();
    io.stderr.write(`Enroll the passkey on this page (the link works once, for 10 minutes):\n${link}\n`);
    if (parsed['browser'] !== false && !(await openBrowser(link, io.env)))
      io.stderr.write('No browser could be started: open the link yourself.\n');
    const outcome = await Promise.race([
      added,
      page.closed.then(() => undefined),
      new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ENROL_WAIT_MS))),
    ]);
    if (outcome === undefined) {
      throw new UsageError(
        'No passkey was enrolled.',
        'Run wallet approvals passkey add again when the browser is at hand.',
      );
    }
    // The browser gets its "enrolled" page before the server stops.
    await new Promise((resolve) => setTimeout(resolve, 300));
    if (json) io.stdout.write(JSON.stringify({ added: outcome.name, id: outcome.id }, null, 2) + '\n');
    else
      io.stdout.write(
        `Enrolled the passkey ${outcome.name}: from now on every yes to an agent's call takes a passkey.\n`,
      );
    return EXIT.ok;
  } finally {
    clearTimeout(timer);
    release();
    await page.close();
  }
}

/**
 * Checks the keystore passphrase, from `--passphrase-file`, `--passphrase-stdin` or the hidden
 * prompt on a terminal (never argv): `WALLET_LOCKED` when it is not the keystore's.
 */
async function ownerPassphrase(
  parsed: Record<string, unknown>,
  io: CliIo,
  dataDir: string,
  what: 'added' | 'removed',
): Promise<void> {
  const { readSecretFile, readSecretStdin, promptHidden } = await import('./secrets.js');
  const file = parsed['passphrase-file'];
  const passphrase =
    typeof file === 'string'
      ? await readSecretFile(file, '--passphrase-file')
      : parsed['passphrase-stdin'] === true
        ? await readSecretStdin(io, '--passphrase-stdin')
        : io.stdin.isTTY
          ? await promptHidden(io, 'Keystore passphrase (hidden): ')
          : undefined;
  if (passphrase === undefined || passphrase === '') {
    throw new UsageError(
      `A passkey is ${what} only with the keystore passphrase; none was given, so nothing was ${what}.`,
      'Run it in a terminal (it asks), or give --passphrase-file <owner-only file> or --passphrase-stdin.',
    );
  }
  const { checkOwnerPassphrase } = await import('../domain/policy/passkeys.js');
  await checkOwnerPassphrase(dataDir, passphrase, what);
}

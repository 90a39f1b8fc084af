import type { Approval } from '../domain/policy/approvals.js';
import { asOwnerVerb } from './owner-errors.js';
import { askLine, Declined } from './confirm.js';
import { parseFlags, type CliFlag } from './global-flags.js';
import type { CliIo } from './io.js';
import { colorEnabled, createStyle, renderHuman, terminalSafe } from './render.js';
import { closestNames } from './suggest.js';
import { rejectUnknownFlags } from './unknown-flags.js';
import { EXIT, UsageError } from './usage-error.js';

/** The subcommands of `wallet approvals`, for help and completion. */
export const APPROVALS_SUBCOMMANDS = ['list', 'approve', 'deny', 'open'] as const;
type Subcommand = (typeof APPROVALS_SUBCOMMANDS)[number];

export const APPROVALS_SUMMARIES: Readonly<Record<Subcommand, string>> = {
  list: 'The approvals agents wait for, with what each would sign',
  approve: 'Let one waiting call through, once (asks on this terminal)',
  deny: 'Refuse one waiting call',
  open: 'Serve the approval page on loopback and open it in a browser',
};

/** Every flag `wallet approvals …` takes. */
export const APPROVALS_FLAGS: readonly CliFlag[] = [
  { name: 'all', type: 'boolean', description: 'list: also the approvals decided or used in the last day.' },
  { name: 'browser', type: 'boolean', description: 'open: --no-browser prints the link without opening a browser.' },
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
                                             call would sign, with approve and deny buttons

An agent's call that signs or deletes, beyond what the policy lets it do alone, ends with
APPROVAL_REQUIRED and an id (ap-…). Approving lets the same call, with the same arguments,
through once; it expires after 15 minutes. These commands are never tools of wallet serve.
'open' prints a single-use link to the page (it opens a session in one browser) and opens it with
$BROWSER or the system's opener; wallet serve serves the same page and prints a link for each call
that waits.
`;

/**
 * `wallet approvals …`: the owner answers agents' approval requests in a terminal on the same
 * machine (same data directory). Approving needs a person at a terminal: without one it refuses.
 */
export async function runApprovals(argv: readonly string[], io: CliIo, dataDir: string): Promise<number> {
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
  const [id, ...extra] = words;
  if (id === undefined)
    throw new UsageError(`approvals ${subcommand} needs an approval id (ap-…).`, "See 'wallet approvals'.");
  if (extra.length > 0) throw new UsageError(`approvals ${subcommand} takes one id.`);
  if (subcommand === 'approve') {
    const approval = await asOwnerVerb(() => store.pending(id));
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
  const stop = (): void => void page.close();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await page.closed;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
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

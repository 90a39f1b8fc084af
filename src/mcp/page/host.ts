import type { WalletServices } from '../../domain/services.js';
import { parseListenAddress } from '../http/listen-address.js';
import type { ApprovalPage } from './page.js';

/** A page as started: one on a port of its own also has a server to stop. */
type StartedPage = ApprovalPage & { close?: () => Promise<void> };

/** A line for the owner, on the server's stderr (never stdout: that is the protocol's). */
export type Announce = (line: string) => void;

/**
 * The approval page of one `wallet serve` process, started on first need: the first approval filed
 * (or, over HTTP, the first request to the page). Each new approval's single-use link goes to the
 * owner on stderr; the agent is told only the page's address, which opens without a token only in
 * a browser that has a session: a link handed to the agent would let an agent that can make HTTP
 * requests approve its own call.
 */
export class ApprovalPageHost {
  private started: Promise<StartedPage | undefined> | undefined;
  private readonly announced = new Set<string>();

  constructor(
    private readonly start: () => Promise<StartedPage>,
    private readonly announce: Announce,
  ) {}

  /** The page, started if need be; undefined when it could not start (said once on stderr). */
  page(): Promise<StartedPage | undefined> {
    this.started ??= this.start().then(
      (page) => {
        this.announce(`approval page at ${page.origin}/approvals (opened with the single-use links printed here)`);
        return page;
      },
      (error: unknown) => {
        const reason = error instanceof Error ? ((error as NodeJS.ErrnoException).code ?? error.message) : 'unknown';
        this.announce(`the approval page could not start (${reason}); approve with wallet approvals approve <id>`);
        return undefined;
      },
    );
    return this.started;
  }

  /** The page's address of approval `id`, its single-use link printed for the owner the first time. */
  async urlFor(id: string): Promise<string | undefined> {
    const page = await this.page();
    if (page === undefined) return undefined;
    if (!this.announced.has(id)) {
      this.announced.add(id);
      this.announce(`approval ${id} waits for you; open it once at ${page.link(id)}`);
    }
    return page.urlOf(id);
  }

  /** Stops the page's own server, if it started one. */
  async close(): Promise<void> {
    await (await this.started)?.close?.();
  }
}

/**
 * The page on a loopback port of its own (config `approvals.page.listen`, else a free port), for
 * `wallet serve` on stdio, or over HTTP on an address other machines reach (the page never is).
 */
export function ownPortPage(services: WalletServices, announce: Announce): ApprovalPageHost {
  return new ApprovalPageHost(async () => {
    const listen = parseListenAddress((await services.approvalPageListen()) ?? '127.0.0.1:0');
    // Loaded only here: a serve that never files an approval never loads the page.
    const { serveApprovalPage } = await import('./serve.js');
    return serveApprovalPage({ dataDir: services.dataDir, listen, background: true });
  }, announce);
}

/** Exit codes: a documented contract (docs/CLI.md). */
export const EXIT = {
  ok: 0,
  toolError: 1,
  usage: 2,
  connection: 3,
  /** The call waits for the owner's approval (`APPROVAL_REQUIRED`): ask a human, then repeat it. */
  approvalRequired: 4,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** Bad command line or bad input, caught before any call: exit 2, with a hint where one helps. */
export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

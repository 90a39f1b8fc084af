export { BusyError, UsageError } from '../shared/usage-error.js';

/** Exit codes: a documented contract (docs/CLI.md). */
export const EXIT = {
  ok: 0,
  toolError: 1,
  usage: 2,
  connection: 3,
  /** `APPROVAL_REQUIRED`: the server waits for its owner's approval; ask a human, then repeat it. */
  approvalRequired: 4,
  /** `BUSY`: another process holds the lock; the same command may succeed in a moment. */
  busy: 5,
  /** `KEYSTORE_DAMAGED`: a keystore file was altered; restore it from a backup. */
  keystoreDamaged: 6,
  /** `BACKEND_INVALID`: the node or explorer answered nonsense; fix it or use another. */
  backendInvalid: 7,
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** The exit code of a tool error, from its code (a server that sends none: 1). */
export function exitCodeOfToolError(code: string | undefined): ExitCode {
  switch (code) {
    case 'INVALID_PARAM':
    case 'NETWORK_REQUIRED':
      return EXIT.usage;
    case 'APPROVAL_REQUIRED':
      return EXIT.approvalRequired;
    case 'BUSY':
      return EXIT.busy;
    case 'KEYSTORE_DAMAGED':
      return EXIT.keystoreDamaged;
    case 'BACKEND_INVALID':
      return EXIT.backendInvalid;
    default:
      return EXIT.toolError;
  }
}

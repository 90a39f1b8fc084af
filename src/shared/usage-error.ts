/**
 * Bad command line, flag or setting, caught before any call (an unknown flag, a malformed
 * `--listen` or `--endpoint`): the CLI's exit 2, with a hint where one helps. The one error type
 * for them, whichever layer parses the setting.
 */
export class UsageError extends Error {
  override name = 'UsageError';
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

/**
 * Another process held a lock of the data directory (config.json, servers.json) past the wait,
 * caught in a CLI verb of its own: the CLI's exit 5, as a tool's `BUSY` is. Run it again in a moment.
 */
export class BusyError extends Error {
  override name = 'BusyError';
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

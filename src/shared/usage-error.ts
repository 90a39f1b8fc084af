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

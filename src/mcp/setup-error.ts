/** A setup the user got wrong (a malformed --endpoint): the CLI's exit 2. */
export class SetupError extends Error {
  override name = 'SetupError';
  constructor(
    message: string,
    readonly hint: string | undefined,
  ) {
    super(message);
  }
}

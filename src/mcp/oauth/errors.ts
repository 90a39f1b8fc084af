/** A login is needed and cannot start here (no terminal, no `$BROWSER`): the message says what to run. */
export class LoginRequiredError extends Error {
  override name = 'LoginRequiredError';
}

/** The browser came back without a code, or with another login's state. */
export class LoginFailedError extends Error {
  override name = 'LoginFailedError';
}

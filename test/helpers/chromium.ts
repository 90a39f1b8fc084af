import { existsSync } from 'node:fs';

/** Debian's `chromium` (or `$CHROMIUM_PATH`), which `.ci/run` installs; undefined when there is none. */
export function chromiumPath(): string | undefined {
  const candidates = [process.env['CHROMIUM_PATH'], '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((candidate): candidate is string => candidate !== undefined && existsSync(candidate));
}

/**
 * The `skip` of a suite that needs a real browser: false when chromium is here; otherwise the
 * reason, also printed on stderr in capitals, so a run without it never looks like a pass.
 */
export function skipWithoutChromium(what: string): string | false {
  if (chromiumPath() !== undefined) return false;
  const reason = `chromium is not installed (apt-get install chromium; .ci/run installs it): ${what} did NOT run`;
  process.stderr.write(`\n*** SKIPPED: ${reason} ***\n\n`);
  return reason;
}

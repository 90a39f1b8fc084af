/**
 * The JSON value a tool result's text holds, or undefined when it holds none (not JSON, or longer
 * than 64 KiB, which no payment request is): x402's MCP transport repeats its payment request as
 * JSON in the first text content, which both the CLI and the payer read.
 */
export function jsonOfText(text: string | undefined): unknown {
  if (text === undefined || text.length > 65_536) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

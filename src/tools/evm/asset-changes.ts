import { formatUnits, showAmount } from '../../shared/amounts.js';
import { AssetChangesField } from './tx-fields.js';

/**
 * The lines a question (and the approval page, which shows the question) gives a plan's
 * `asset_changes`: each balance that changes, the signer's first, each allowance set, or plainly
 * that the call could not be simulated or would revert. Nothing when the plan has none (a tool
 * without a simulation).
 *
 * @example
 * assetChangeLines({ asset_changes: { simulated: false, reason: 'eth_simulateV1: method not found' } })
 * // ['  asset changes: could not simulate (eth_simulateV1: method not found)']
 */
export function assetChangeLines(planned: Record<string, unknown> | undefined): string[] {
  const parsed = AssetChangesField.safeParse(planned?.['asset_changes']);
  const changes = parsed.success ? parsed.data : undefined;
  if (!changes) return [];
  if (!changes.simulated) return [`  asset changes: could not simulate (${changes.reason})`];
  if (changes.reverts !== null) {
    return [`  asset changes: none, the call would revert (${changes.reverts}) (simulated with ${changes.method})`];
  }
  const lines = [`  asset changes (simulated with ${changes.method}; the fee comes on top):`];
  if (changes.balances.length === 0 && changes.allowances.length === 0)
    lines.push('    no balance or allowance changes');
  for (const change of changes.balances) {
    const delta = BigInt(change.delta);
    const sign = delta < 0n ? '-' : '+';
    const size = delta < 0n ? -delta : delta;
    const amount = change.asset === 'ether' ? showAmount(size, 'wei') : tokenUnits(size, change.asset, planned);
    lines.push(`    ${change.signer ? 'signer ' : ''}${change.holder}: ${sign}${amount}`);
  }
  for (const allowance of changes.allowances) {
    const amount = tokenUnits(BigInt(allowance.amount), allowance.token, planned);
    lines.push(`    allowance: ${allowance.spender} may spend ${amount} of ${allowance.owner}`);
  }
  return lines;
}

/** "1.5 TST (1500000 base units of token 0x…)" where the plan names the token's decimals, else base units. */
function tokenUnits(units: bigint, token: string, planned: Record<string, unknown> | undefined): string {
  const base = `${units} base units of token ${token}`;
  const decimals = planned?.['token_decimals'];
  const symbol = planned?.['token_symbol'];
  if (planned?.['token'] !== token || typeof decimals !== 'number') return base;
  return `${formatUnits(units, decimals)} ${typeof symbol === 'string' ? symbol : 'tokens'} (${base})`;
}

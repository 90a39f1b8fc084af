/**
 * The candidates closest to a mistyped name, best first: edit distance within a third of the
 * name's length, or the candidates that contain it.
 *
 * @example
 * closestNames('netwrk-info', ['network-info', 'tool-describe']) // ['network-info']
 */
export function closestNames(typed: string, candidates: readonly string[], limit = 3): string[] {
  const budget = Math.max(2, Math.floor(typed.length / 3));
  return candidates
    .map((candidate) => ({ candidate, distance: editDistance(typed, candidate) }))
    .filter(({ candidate, distance }) => distance <= budget || (typed.length >= 3 && candidate.includes(typed)))
    .sort((a, b) => a.distance - b.distance || a.candidate.localeCompare(b.candidate))
    .slice(0, limit)
    .map(({ candidate }) => candidate);
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

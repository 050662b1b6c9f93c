/** Did-you-mean suggestions for misspelt keys and enum values. */

export function editDistance(a: string, b: string): number {
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0];
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j];
      prev[j] = Math.min(prev[j] + 1, prev[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length];
}

/**
 * The closest candidate within a distance that scales with the word (a third of its length, at least 2),
 * compared case- and separator-insensitively so `timeUnit`, `time-unit` and `timeunit` find `time_unit`.
 */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const norm = (s: string): string => s.toLowerCase().replace(/[-_\s]/g, '');
  const w = norm(word);
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(w, norm(c));
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  const limit = Math.max(2, Math.floor(word.length / 3));
  return bestD <= limit ? best : undefined;
}

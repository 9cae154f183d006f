/**
 * The median of `values`: the middle value, or the mean of the two middle values when there is an even number of
 * them (not the upper one of the two); null for none. The evaluations and `wiflow sense` report this as "median".
 */
export function median(values: readonly number[]): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

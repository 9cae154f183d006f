/**
 * The exact one-sided 95 % upper bound of a Poisson mean after `count` events: the mean λ at
 * which seeing `count` or fewer has probability 5 % (0 events: −ln 0.05 ≈ 3.00; 1: 4.74; 10:
 * 16.96). Divided by the hours observed it bounds a rate: 0 phantoms in 3 h, ≤ 1.0 per hour.
 * Solved by bisection on the Poisson CDF; the tree has no statistics library, and this is the
 * one quantile the evaluation needs.
 */
export function poissonUpper95(count: number): number {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`a Poisson count is a whole number ≥ 0, got ${count}`);
  const cdf = (mean: number) => {
    let term = Math.exp(-mean);
    let sum = term;
    for (let i = 1; i <= count; i++) {
      term *= mean / i;
      sum += term;
    }
    return sum;
  };
  let low = 0;
  let high = count + 10 + 5 * Math.sqrt(count + 1);
  while (cdf(high) > 0.05) high *= 2;
  for (let i = 0; i < 100 && high - low > 1e-9; i++) {
    const mid = (low + high) / 2;
    if (cdf(mid) > 0.05) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/** Events per hour and its 95 % upper bound (`poissonUpper95`) over `seconds` observed; null where nothing was observed. */
export function ratePerHour(count: number, seconds: number): { perHour: number | null; upper95PerHour: number | null } {
  if (!(seconds > 0)) return { perHour: null, upper95PerHour: null };
  const hours = seconds / 3600;
  return { perHour: count / hours, upper95PerHour: poissonUpper95(count) / hours };
}

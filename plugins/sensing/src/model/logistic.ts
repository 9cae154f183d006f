/**
 * A logistic regression on a few standardised features: the only thing the sensing learns from data.
 * Small enough to print, diff and document.
 */
export interface LogisticModel {
  /** Feature names in the order `weights` expects them. */
  features: string[];
  /** Per-feature mean and scale used to standardise inputs. */
  mean: number[];
  scale: number[];
  weights: number[];
  bias: number;
  /** Decision threshold on the probability (0.5 unless selected by nested cross-validation). */
  threshold: number;
  /** A motion model that reads `MOTION_FLOOR_FEATURES`: the quantile of the link's own floor it reads them against (`MotionFloor`). */
  floorQuantile?: number;
}

/** Options of `fitLogistic`. */
export interface FitOptions {
  /** L2 penalty on the standardised weights (default 1). */
  l2?: number;
  /** Weight the classes equally whatever their counts (default true). */
  balanced?: boolean;
  /** Newton iterations (default 30). */
  iterations?: number;
}

/** Probability of the positive class for one feature vector. */
export function predictLogistic(model: LogisticModel, x: ArrayLike<number>): number {
  let z = model.bias;
  for (let i = 0; i < model.weights.length; i++) z += model.weights[i] * ((x[i] - model.mean[i]) / model.scale[i]);
  return 1 / (1 + Math.exp(-z));
}

/** The inputs a model reads, picked by name from a vector laid out as `names`. */
export function pickFeatures(model: LogisticModel, names: string[], x: ArrayLike<number>): number[] {
  return model.features.map((name) => x[names.indexOf(name)]);
}

/** Solve the small symmetric system A x = b in place by Gaussian elimination with partial pivoting. */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r][c]) > Math.abs(a[p][c])) p = r;
    [a[c], a[p]] = [a[p], a[c]];
    [b[c], b[p]] = [b[p], b[c]];
    const d = a[c][c] || 1e-12;
    for (let r = c + 1; r < n; r++) {
      const f = a[r][c] / d;
      if (f === 0) continue;
      for (let k = c; k < n; k++) a[r][k] -= f * a[c][k];
      b[r] -= f * b[c];
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = b[r];
    for (let k = r + 1; k < n; k++) s -= a[r][k] * x[k];
    x[r] = s / (a[r][r] || 1e-12);
  }
  return x;
}

/** Fit by Newton's method (iteratively reweighted least squares) with an L2 penalty; labels are 0/1. */
export function fitLogistic(features: string[], rows: number[][], labels: number[], options: FitOptions = {}): LogisticModel {
  const n = rows.length;
  const m = features.length;
  if (n === 0) throw new Error('fitLogistic: no rows');
  const mean = new Array<number>(m).fill(0);
  const scale = new Array<number>(m).fill(0);
  for (const row of rows) for (let j = 0; j < m; j++) mean[j] += row[j] / n;
  for (const row of rows) for (let j = 0; j < m; j++) scale[j] += (row[j] - mean[j]) ** 2 / n;
  for (let j = 0; j < m; j++) scale[j] = Math.sqrt(scale[j]) || 1;
  // Standardised rows with a constant 1 appended, in one typed array: the Hessian loop is the cost.
  const w1 = m + 1;
  const z = new Float64Array(n * w1);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) z[i * w1 + j] = (rows[i][j] - mean[j]) / scale[j];
    z[i * w1 + m] = 1;
  }
  const positives = labels.reduce((s, y) => s + y, 0);
  const balanced = options.balanced ?? true;
  const wPos = balanced && positives > 0 ? 0.5 / (positives / n) : 1;
  const wNeg = balanced && positives < n ? 0.5 / (1 - positives / n) : 1;
  const l2 = options.l2 ?? 1;
  let beta = new Array<number>(m + 1).fill(0);
  for (let it = 0; it < (options.iterations ?? 30); it++) {
    const grad = new Array<number>(w1).fill(0);
    const upper = new Float64Array(w1 * w1);
    for (let i = 0; i < n; i++) {
      const o = i * w1;
      let s = 0;
      for (let j = 0; j < w1; j++) s += z[o + j] * beta[j];
      const p = 1 / (1 + Math.exp(-s));
      const w = labels[i] ? wPos : wNeg;
      const g = w * (p - labels[i]);
      const h = w * p * (1 - p);
      for (let j = 0; j < w1; j++) {
        const zj = z[o + j];
        grad[j] += g * zj;
        const hz = h * zj;
        for (let k = j; k < w1; k++) upper[j * w1 + k] += hz * z[o + k];
      }
    }
    const hess = Array.from({ length: w1 }, (_, j) => Array.from({ length: w1 }, (_, k) => (k >= j ? upper[j * w1 + k] : upper[k * w1 + j])));
    for (let j = 0; j < m; j++) {
      grad[j] += l2 * beta[j];
      hess[j][j] += l2;
    }
    const step = solve(hess, grad);
    beta = beta.map((b, j) => b - step[j]);
    if (step.every((s) => Math.abs(s) < 1e-9)) break;
  }
  return { features, mean, scale, weights: beta.slice(0, m), bias: beta[m], threshold: 0.5 };
}

import type { SensingModels } from '../config.js';
import type { LogisticModel } from '../model/logistic.js';

/**
 * The shipped models (src/model/defaults.ts) are meant to be what `wiflow eval-real --fit` prints on all
 * the real data. This names every model whose features differ or whose numbers differ by more than the
 * rounding the defaults are written with (6 significant figures), so a refit that was not carried into
 * the defaults is said rather than silently shipped.
 */
export function staleShippedModels(shipped: SensingModels, fitted: SensingModels, relativeTolerance = 1e-4): string[] {
  const stale: string[] = [];
  for (const [family, model] of Object.entries(fitted.motion)) {
    if (!sameModel(shipped.motion[family], model, relativeTolerance)) stale.push(`motion.${family}`);
  }
  for (const [family, model] of Object.entries(fitted.motionSlow ?? {})) {
    if (!sameModel(shipped.motionSlow?.[family], model, relativeTolerance)) stale.push(`motionSlow.${family}`);
  }
  for (const [family, below] of Object.entries(fitted.motionSlowBelow ?? {})) {
    if (shipped.motionSlowBelow?.[family] !== below) stale.push(`motionSlowBelow.${family}`);
  }
  for (const [family, floor] of Object.entries(fitted.motionFloor ?? {})) {
    const shippedFloor = shipped.motionFloor?.[family];
    if (shippedFloor?.seconds !== floor.seconds) stale.push(`motionFloor.${family}`);
  }
  if (!sameModel(shipped.fall, fitted.fall, relativeTolerance)) stale.push('fall');
  if (fitted.profileFall && !sameModel(shipped.profileFall, fitted.profileFall, relativeTolerance)) stale.push('profileFall');
  return stale;
}

function sameModel(a: LogisticModel | undefined, b: LogisticModel, tol: number): boolean {
  if (!a || a.features.join() !== b.features.join() || a.threshold !== b.threshold || a.floorQuantile !== b.floorQuantile) return false;
  const close = (x: number, y: number) => Math.abs(x - y) <= tol * Math.max(1, Math.abs(x), Math.abs(y));
  const all = (xs: readonly number[], ys: readonly number[]) => xs.length === ys.length && xs.every((x, i) => close(x, ys[i]!));
  return all(a.mean, b.mean) && all(a.scale, b.scale) && all(a.weights, b.weights) && close(a.bias, b.bias);
}

import { linearSumAssignment } from 'linear-sum-assignment';

/** Cost used for pairs outside the gate: never chosen over leaving both unmatched. */
const FORBIDDEN = 1e6;

/**
 * Minimum-cost one-to-one assignment of rows to columns (Hungarian / Jonker–Volgenant via
 * the `linear-sum-assignment` package) where pairs with a cost of `Infinity` (outside the
 * gate) may not be matched. Returns the matched [row, column] pairs.
 */
export function assignGated(costs: number[][]): [number, number][] {
  const rows = costs.length;
  const cols = rows ? costs[0].length : 0;
  if (rows === 0 || cols === 0) return [];
  let any = false;
  const matrix = costs.map((row) => row.map((c) => {
    if (Number.isFinite(c)) {
      any = true;
      return c;
    }
    return FORBIDDEN;
  }));
  if (!any) return [];
  // A 1×1 problem needs no solver (and the library wants at least one free choice).
  if (rows === 1 && cols === 1) return Number.isFinite(costs[0][0]) ? [[0, 0]] : [];
  const { rowAssignments } = linearSumAssignment(matrix, { maximaze: false });
  const pairs: [number, number][] = [];
  for (let r = 0; r < rows; r++) {
    const c = rowAssignments[r];
    if (c >= 0 && Number.isFinite(costs[r][c])) pairs.push([r, c]);
  }
  return pairs;
}

/** A floor point in metres. */
export interface FloorPoint {
  x: number;
  y: number;
}

/** A polygon as a list of [x, y] vertices in floor metres (closed implicitly). */
export type Polygon = readonly (readonly [number, number])[];

/** Whether a point lies inside a polygon (even–odd rule; points on an edge count as inside). */
export function pointInPolygon(p: FloorPoint, polygon: Polygon): boolean {
  let inside = false;
  const n = polygon.length;
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const [xi, yi] = polygon[i];
    const [xj, yj] = polygon[j];
    if (onSegment(p, xi, yi, xj, yj)) return true;
    if (yi > p.y !== yj > p.y && p.x < ((xj - xi) * (p.y - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

function onSegment(p: FloorPoint, x1: number, y1: number, x2: number, y2: number): boolean {
  const cross = (x2 - x1) * (p.y - y1) - (y2 - y1) * (p.x - x1);
  if (Math.abs(cross) > 1e-9) return false;
  return p.x >= Math.min(x1, x2) - 1e-9 && p.x <= Math.max(x1, x2) + 1e-9 && p.y >= Math.min(y1, y2) - 1e-9 && p.y <= Math.max(y1, y2) + 1e-9;
}

/** Area of a simple polygon in m² (shoelace). */
export function polygonArea(polygon: Polygon): number {
  let sum = 0;
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) sum += polygon[j][0] * polygon[i][1] - polygon[i][0] * polygon[j][1];
  return Math.abs(sum) / 2;
}

/** Euclidean distance between two floor points. */
export function distance(a: FloorPoint, b: FloorPoint): number {
  return Math.hypot(a.x - b.x, a.y - b.y);
}

/**
 * Signed distance of a point from the infinite line through a → b: positive on the left
 * (counter-clockwise side) when looking from a to b.
 */
export function signedDistanceToLine(p: FloorPoint, a: FloorPoint, b: FloorPoint): number {
  const len = Math.hypot(b.x - a.x, b.y - a.y);
  if (len === 0) return 0;
  return ((b.x - a.x) * (p.y - a.y) - (b.y - a.y) * (p.x - a.x)) / len;
}

/** Position of the projection of p on segment a → b as a fraction (0 at a, 1 at b). */
export function projectionFraction(p: FloorPoint, a: FloorPoint, b: FloorPoint): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len2 = dx * dx + dy * dy;
  return len2 === 0 ? 0 : ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2;
}

/** Whether segments p1→p2 and q1→q2 intersect (touching counts). */
export function segmentsIntersect(p1: FloorPoint, p2: FloorPoint, q1: FloorPoint, q2: FloorPoint): boolean {
  const d1 = orient(q1, q2, p1);
  const d2 = orient(q1, q2, p2);
  const d3 = orient(p1, p2, q1);
  const d4 = orient(p1, p2, q2);
  if (((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0))) return true;
  return (d1 === 0 && within(q1, q2, p1)) || (d2 === 0 && within(q1, q2, p2)) || (d3 === 0 && within(p1, p2, q1)) || (d4 === 0 && within(p1, p2, q2));
}

function orient(a: FloorPoint, b: FloorPoint, c: FloorPoint): number {
  const v = (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
  return Math.abs(v) < 1e-12 ? 0 : v;
}

function within(a: FloorPoint, b: FloorPoint, p: FloorPoint): boolean {
  return p.x >= Math.min(a.x, b.x) && p.x <= Math.max(a.x, b.x) && p.y >= Math.min(a.y, b.y) && p.y <= Math.max(a.y, b.y);
}

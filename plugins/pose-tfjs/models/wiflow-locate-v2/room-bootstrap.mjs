// The 95 % bootstrap over rooms the validation protocols use (deadband-protocol.md, distract-protocol.md):
// 2,000 resamples of room indices with a fixed seed, so the same rooms are drawn for every model
// (paired), and the pooling of per-room figures (count exact weighted by samples, floor error by
// matched people) that `wiflow locate eval --per-room` rooms are pooled with.
const round = (v, d = 3) => (v == null ? null : +v.toFixed(d));

/** Pooled figures of some rooms: count exact weighted by samples, floor error by matched people. */
export const pooled = (rooms) => {
  let samples = 0, exact = 0, people = 0, floor = 0;
  for (const r of rooms) { samples += r.samples; exact += r.countExact * r.samples; people += r.people; floor += (r.floorErrorM ?? 0) * r.people; }
  return { count: exact / samples, floor: people ? floor / people : null };
};

/** 95 % interval of a statistic of resampled room indices (2,000 draws, fixed seed). */
export const bootstrap = (n, statistic) => {
  let state = 20261127;
  const random = () => { state = (state * 1664525 + 1013904223) >>> 0; return state / 2 ** 32; };
  const values = [];
  for (let b = 0; b < 2000; b++) values.push(statistic(Array.from({ length: n }, () => Math.floor(random() * n))));
  values.sort((a, b) => a - b);
  return [round(values[49]), round(values[1949])];
};

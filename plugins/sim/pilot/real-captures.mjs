// Shared by the realism pilots (fall_width.mjs, fall_noise.mjs, walk_frequency.mjs): the real labelled
// captures under ../shared/data/real read in place (evaluation only; never copied), and the per-stream
// amplitude series and median they read them with.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readCapture } from '@wiflow/plugin-csi';

/** The median of the finite values (the upper one of an even count); NaN when none. */
export const median = (v) => {
  const s = v.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
};

/** Each antenna pair × subcarrier's amplitude over the packets; streams that are zero throughout are dropped. */
export const streamsOf = (frames) => {
  const n = frames[0].csi.re.length;
  const out = Array.from({ length: n }, () => new Float64Array(frames.length));
  frames.forEach((f, t) => {
    for (let i = 0; i < n; i++) out[i][t] = Math.hypot(f.csi.re[i], f.csi.im[i]);
  });
  return out.filter((s) => s.some((v) => v > 0));
};

/** Packets per second from the median gap, whole, at least 1. */
export const medianRateHz = (frames) => Math.max(1, Math.round(1e6 / median(frames.slice(1).map((f, i) => f.timestamp - frames[i].timestamp))));

/**
 * The first `count` entries of `dir`/labels.json whose label is one of `labels`, read: `{ entry, frames }` for each
 * that decodes and keeps at least `minFrames` packets (within its first `maxSeconds` when given); others are skipped.
 */
export async function readLabelled(dir, labels, count, { maxSeconds, minFrames = 40 } = {}) {
  const entries = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8')).filter((l) => labels.includes(l.label)).slice(0, count);
  const out = [];
  for (const entry of entries) {
    let frames;
    try {
      frames = await readCapture(join(dir, entry.file));
    } catch {
      continue;
    }
    if (maxSeconds) frames = frames.filter((f) => f.timestamp - frames[0].timestamp <= maxSeconds * 1e6);
    if (frames.length < minFrames) continue;
    out.push({ entry, frames });
  }
  return out;
}

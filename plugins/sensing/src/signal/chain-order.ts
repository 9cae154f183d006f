/**
 * Antenna-switching glitches: now and then a multi-chain receiver (the Intel 5300 among them, and the
 * simulator's realism v2 radios) reports its receive chains rotated by one for a packet. Each chain has
 * its own multipath fading across subcarriers, so such a packet looks like a huge one-packet change of the
 * phase between chains: before this check it made a two-second "moving" run (the motion window), and with
 * the presence hold a minute of false presence, every ~20 s on a glitchy link (pilot/sim_false_presence.mjs).
 *
 * The check compares each packet's per-chain amplitude profile with the previous packet's under every
 * rotation of the chain order and keeps the rotation that fits clearly best. A body changes the profiles
 * by a few per cent between packets; a rotation swaps whole fading patterns.
 */
import type { ComplexArray, CsiFrame } from '@wiflow/core';

/**
 * A rotation is taken when its mismatch is below this fraction of the reported order's. On validation room
 * 4 (pilot, 600 s, 2 links) rotated packets scored 0.35–0.80 and every other packet 1.05–2.8.
 */
const CLEARLY_BETTER = 0.85;

/**
 * The rotation `k` of the receive chains that best matches the previous packet: true chain `r` of
 * transmit stream `t` is reported at chain `(r + k) % nrx`. 0 keeps the reported order.
 * `amplitudes` and `previous` hold per-stream normalised amplitudes, stream `t * nrx + r`, `nsc` each.
 */
export function chainRotation(amplitudes: Float64Array, previous: Float64Array, ntx: number, nrx: number, nsc: number): number {
  if (nrx < 2) return 0;
  let reported = 0;
  let best = 0;
  let bestCost = Infinity;
  for (let k = 0; k < nrx; k++) {
    const cost = mismatch(amplitudes, previous, k, ntx, nrx, nsc);
    if (k === 0) reported = cost;
    else if (cost < bestCost) [best, bestCost] = [k, cost];
  }
  if (!(bestCost < CLEARLY_BETTER * reported)) return 0;
  // Chains whose profiles barely differ (a flat channel) cannot show a rotation: the better fit is noise.
  return mismatch(previous, previous, best, ntx, nrx, nsc) >= 2 * bestCost ? best : 0;
}

/** Sum of absolute differences between `a` read with its chains rotated by `k` and `b`. */
function mismatch(a: Float64Array, b: Float64Array, k: number, ntx: number, nrx: number, nsc: number): number {
  let cost = 0;
  for (let t = 0; t < ntx; t++) {
    for (let r = 0; r < nrx; r++) {
      const from = (t * nrx + ((r + k) % nrx)) * nsc;
      const to = (t * nrx + r) * nsc;
      for (let i = 0; i < nsc; i++) cost += Math.abs(a[from + i] - b[to + i]);
    }
  }
  return cost;
}

/** The frame with its receive chains read back in the true order, given its `chainRotation` `k` (a copy; 0 returns it as is). */
export function inChainOrder(frame: CsiFrame, k: number): CsiFrame {
  if (!k) return frame;
  const reorder = (c: ComplexArray): ComplexArray => {
    const { ntx, nrx, nsc } = frame;
    const re = new Float32Array(c.re.length);
    const im = new Float32Array(c.im.length);
    for (let t = 0; t < ntx; t++) for (let r = 0; r < nrx; r++) {
      const from = (t * nrx + ((r + k) % nrx)) * nsc;
      const to = (t * nrx + r) * nsc;
      re.set(c.re.subarray(from, from + nsc), to);
      im.set(c.im.subarray(from, from + nsc), to);
    }
    return { re, im };
  };
  return { ...frame, csi: reorder(frame.csi), ...(frame.scaled ? { scaled: reorder(frame.scaled) } : {}) };
}

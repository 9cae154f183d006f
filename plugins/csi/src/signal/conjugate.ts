import type { CsiFrame } from '@wiflow/core';
import { invalidArgument } from '../errors.js';

/**
 * Conjugate multiplication between the receive chains of one receiver: for every transmit
 * stream and every chain r ≠ `reference`, `H_r · conj(H_reference)`. The per-packet offsets
 * shared by the chains (CFO, SFO, PDD) cancel. The result has `nrx − 1` chains.
 */
export function conjugateMultiply(frame: CsiFrame, reference = 0): CsiFrame {
  const { ntx, nrx, nsc } = frame;
  if (nrx < 2) throw invalidArgument(`conjugate multiplication needs at least 2 receive chains (frame from ${frame.sourceId} has ${nrx})`);
  if (!Number.isInteger(reference) || reference < 0 || reference >= nrx) throw invalidArgument(`reference chain ${reference} outside 0..${nrx - 1}`);
  const outRx = nrx - 1;
  const re = new Float32Array(ntx * outRx * nsc);
  const im = new Float32Array(ntx * outRx * nsc);
  const { re: hr, im: hi } = frame.csi;
  for (let t = 0; t < ntx; t++) {
    const ref = (t * nrx + reference) * nsc;
    let o = 0;
    for (let r = 0; r < nrx; r++) {
      if (r === reference) continue;
      const src = (t * nrx + r) * nsc;
      const dst = (t * outRx + o) * nsc;
      for (let k = 0; k < nsc; k++) {
        const ar = hr[src + k];
        const ai = hi[src + k];
        const br = hr[ref + k];
        const bi = hi[ref + k];
        re[dst + k] = ar * br + ai * bi;
        im[dst + k] = ai * br - ar * bi;
      }
      o++;
    }
  }
  return { ...frame, nrx: outRx, csi: { re, im }, scaled: undefined, rssi: undefined };
}

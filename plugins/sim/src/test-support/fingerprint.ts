import { createHash } from 'node:crypto';
import type { SimTick } from '../engine/simulator.js';

/**
 * SHA-256 over everything a run emits: each frame's timestamp, sequence, link, RSSI, noise,
 * CSI values (the Float32 bytes) and the tick's ground truth as JSON. Two runs with equal
 * fingerprints produced the same capture byte for byte.
 */
export function captureFingerprint(ticks: Iterable<SimTick>): string {
  const hash = createHash('sha256');
  for (const tick of ticks) {
    for (const f of tick.frames) {
      hash.update(`${f.timestamp}|${f.sequence}|${f.link.tx}>${f.link.rx}|${f.rssi?.join(',')}|${f.noiseDbm}|`);
      hash.update(new Uint8Array(f.csi.re.buffer, f.csi.re.byteOffset, f.csi.re.byteLength));
      hash.update(new Uint8Array(f.csi.im.buffer, f.csi.im.byteOffset, f.csi.im.byteLength));
    }
    hash.update(JSON.stringify(tick.truth));
  }
  return hash.digest('hex');
}

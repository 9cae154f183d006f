import { PoseErrors } from '../errors.js';
import type { EnvironmentGeometry } from '../model/environment.js';
import { arrayElements, calibrateLink, SUBCARRIER_SPACING_HZ } from './calibration.js';
import { alignPacket, type ComplexPacket, type EmptyRoomReference, type GainModel, type LinkReference } from './reference.js';

/**
 * One link of a room made ready for coherent processing: its empty-room reference, antenna
 * element positions and the per-stream calibration (phase and delay fitted on the reference)
 * as unit phasors. The locator's imager and the room-pose person probe both start from it.
 */
export interface CalibratedLink {
  key: string;
  reference: LinkReference;
  h0: { re: Float64Array; im: Float64Array };
  subcarriers: Int16Array;
  /** Values per packet (streams × subcarriers). */
  n: number;
  nsc: number;
  calRe: Float32Array;
  calIm: Float32Array;
  txE: number[][];
  rxE: number[][];
  /** Subcarrier frequencies, Hz. */
  fk: number[];
}

/**
 * Calibrate one link of `environment` against `reference`. `user` names who needs it in the
 * errors (a link without antenna arrays, a reference without the link or with other antennas).
 */
export function calibratedLink(environment: EnvironmentGeometry, reference: EmptyRoomReference, link: EnvironmentGeometry['links'][number], user: string): CalibratedLink {
  const key = `${link.tx}->${link.rx}`;
  const ref = reference.links.find((l) => l.tx === link.tx && l.rx === link.rx);
  if (!ref) throw PoseErrors.datasetInvalid(`the empty-room reference of ${reference.environmentId} has no link ${key}`);
  if (!link.txArray || !link.rxArray) throw PoseErrors.environmentUnknown(`${environment.id} (link ${key} has no txArray/rxArray: ${user} needs the antenna arrays)`);
  const fc = ref.centerFrequencyHz;
  const txE = arrayElements(link.txPosition, link.txArray, fc), rxE = arrayElements(link.rxPosition, link.rxArray, fc);
  if (txE.length !== ref.ntx || rxE.length !== ref.nrx) throw PoseErrors.datasetInvalid(`link ${key}: the reference has ${ref.ntx}×${ref.nrx} antennas, the environment's arrays ${txE.length}×${rxE.length}`);
  const h0 = { re: Float64Array.from(ref.re), im: Float64Array.from(ref.im) };
  const subcarriers = Int16Array.from(ref.subcarriers);
  const nsc = subcarriers.length, n = h0.re.length;
  const cal = calibrateLink(h0, txE, rxE, environment.room, subcarriers, fc);
  const calRe = new Float32Array(n), calIm = new Float32Array(n);
  for (let q = 0; q < ref.ntx * ref.nrx; q++) {
    for (let k = 0; k < nsc; k++) {
      const a = -cal.phases[q] + 2 * Math.PI * subcarriers[k] * SUBCARRIER_SPACING_HZ * cal.tauS;
      calRe[q * nsc + k] = Math.cos(a);
      calIm[q * nsc + k] = Math.sin(a);
    }
  }
  return { key, reference: ref, h0, subcarriers, n, nsc, calRe, calIm, txE, rxE, fk: Array.from(subcarriers, (m) => fc + m * SUBCARRIER_SPACING_HZ) };
}

/**
 * A packet's change against the empty room: aligned to the reference (timing and gain, per
 * receive chain where the reference chose that or `gain` asks for it), minus the reference.
 */
export function referenceChange(link: Pick<CalibratedLink, 'reference' | 'h0' | 'subcarriers' | 'n'>, csi: ComplexPacket, gain: GainModel = link.reference.gain): { re: Float64Array; im: Float64Array } {
  const aligned = alignPacket(csi, link.h0, link.subcarriers, { nrx: link.reference.nrx, gain });
  const re = new Float64Array(link.n), im = new Float64Array(link.n);
  for (let j = 0; j < link.n; j++) { re[j] = aligned.re[j] - link.h0.re[j]; im[j] = aligned.im[j] - link.h0.im[j]; }
  return { re, im };
}

/** A change against the empty room rotated by the link's calibration. */
export function calibrate(link: Pick<CalibratedLink, 'n' | 'calRe' | 'calIm'>, change: { re: ArrayLike<number>; im: ArrayLike<number> }): { re: Float32Array; im: Float32Array } {
  const re = new Float32Array(link.n), im = new Float32Array(link.n);
  for (let j = 0; j < link.n; j++) {
    const dr = change.re[j], di = change.im[j];
    re[j] = dr * link.calRe[j] - di * link.calIm[j];
    im[j] = dr * link.calIm[j] + di * link.calRe[j];
  }
  return { re, im };
}

/**
 * A packet's calibrated change against the empty room: aligned to the reference (timing and
 * gain, per receive chain where the reference chose that), minus the reference, then rotated
 * by the link's calibration.
 */
export function calibratedChange(link: Pick<CalibratedLink, 'reference' | 'h0' | 'subcarriers' | 'n' | 'calRe' | 'calIm'>, csi: ComplexPacket): { re: Float32Array; im: Float32Array } {
  return calibrate(link, referenceChange(link, csi));
}

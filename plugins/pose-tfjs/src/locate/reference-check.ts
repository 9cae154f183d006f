import type { CsiFrame } from '@wiflow/core';
import { WiflowError } from '@wiflow/core';
import { PoseErrors } from '../errors.js';
import type { EnvironmentGeometry } from '../model/environment.js';
import type { EmptyRoomReference, LinkReference } from './reference.js';

/** A link's key as frames and references name it. */
export function linkKey(link: { tx: string; rx: string }): string {
  return `${link.tx}->${link.rx}`;
}

/** A mismatch error that carries the link and field for APIs (`details.link`, `details.field`). */
function mismatch(link: string, field: string, reference: unknown, actual: unknown): WiflowError {
  const error = PoseErrors.referenceMismatch(link, field, String(reference), String(actual));
  return new WiflowError(error.code, error.message, error.status, { link, field, reference, actual });
}

/**
 * The reference of an environment among those given, checked against the environment before
 * anything runs: one for the environment, a link entry for every link, antenna counts equal to
 * the environment's arrays. Throws `WIFLOW_POSE_REFERENCE_MISSING` or `..._MISMATCH` naming
 * the link and field, so a flow fails when it compiles, never later with a silent fallback.
 */
export function referenceForEnvironment(environment: EnvironmentGeometry, references: readonly EmptyRoomReference[]): EmptyRoomReference {
  const reference = references.find((r) => r.environmentId === environment.id);
  if (!reference) {
    const others = references.map((r) => r.environmentId);
    const error = PoseErrors.referenceMissing(`environment ${environment.id}`, `no empty-room reference${others.length ? ` (the references given are for ${others.join(', ')})` : ''}`);
    throw new WiflowError(error.code, error.message, error.status, { environment_id: environment.id, field: 'references' });
  }
  checkReferenceFitsEnvironment(environment, reference);
  return reference;
}

/** Check a reference against an environment's links and antenna arrays (see `referenceForEnvironment`). */
export function checkReferenceFitsEnvironment(environment: EnvironmentGeometry, reference: EmptyRoomReference): void {
  for (const link of environment.links) {
    const key = linkKey(link);
    const entry = reference.links.find((l) => l.tx === link.tx && l.rx === link.rx);
    if (!entry) {
      const error = PoseErrors.referenceMissing(`environment ${environment.id}`, `link ${key} has no entry in the empty-room reference (field links; it has ${reference.links.map(linkKey).join(', ')})`);
      throw new WiflowError(error.code, error.message, error.status, { environment_id: environment.id, link: key, field: 'links' });
    }
    // Arrays left out are the imager's error (pose.locate needs them); here only counts that disagree.
    if (link.txArray && entry.ntx !== link.txArray.antennas) throw mismatch(key, 'ntx (transmit antennas)', entry.ntx, `${link.txArray.antennas} in the environment's txArray`);
    if (link.rxArray && entry.nrx !== link.rxArray.antennas) throw mismatch(key, 'nrx (receive antennas)', entry.nrx, `${link.rxArray.antennas} in the environment's rxArray`);
  }
}

/**
 * Check one frame against its link's reference: antennas, subcarrier grid, bandwidth and
 * centre frequency must be the ones recorded. A reference of other hardware or another
 * channel cannot be subtracted; the error names the link and the field.
 */
export function checkFrameFitsReference(frame: CsiFrame, reference: LinkReference): void {
  const key = linkKey(frame.link);
  if (frame.ntx !== reference.ntx) throw mismatch(key, 'ntx (transmit antennas)', reference.ntx, frame.ntx);
  if (frame.nrx !== reference.nrx) throw mismatch(key, 'nrx (receive antennas)', reference.nrx, frame.nrx);
  if (frame.nsc !== reference.subcarriers.length) throw mismatch(key, 'subcarriers (count)', reference.subcarriers.length, frame.nsc);
  for (let k = 0; k < frame.nsc; k++) {
    if (frame.subcarriers[k] !== reference.subcarriers[k]) throw mismatch(key, `subcarriers[${k}] (index)`, reference.subcarriers[k], frame.subcarriers[k]);
  }
  if (reference.bandwidthHz && frame.bandwidthHz && reference.bandwidthHz !== frame.bandwidthHz) {
    throw mismatch(key, 'bandwidthHz', `${reference.bandwidthHz / 1e6} MHz`, `${frame.bandwidthHz / 1e6} MHz`);
  }
  // Another channel is another empty room: the static paths' phases turn with frequency.
  if (frame.centerFrequencyHz && Math.abs(frame.centerFrequencyHz - reference.centerFrequencyHz) > 1e3) {
    throw mismatch(key, 'centerFrequencyHz', `${reference.centerFrequencyHz / 1e6} MHz`, `${frame.centerFrequencyHz / 1e6} MHz`);
  }
}

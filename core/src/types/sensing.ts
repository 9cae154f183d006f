import type { LinkId, Provenance } from './csi.js';

/** What a link or room is doing in one second: nobody there, a person there but still, or movement. */
export type SensingState = 'empty' | 'still' | 'moving';

/**
 * Activity read from CSI alone. Postures of a still person (`standing`, `sitting`, `lying`) need more than
 * one link's amplitude; estimators that cannot tell them apart report null rather than guess.
 */
export type SensingActivity = 'walking' | 'standing' | 'sitting' | 'lying' | 'fall' | 'other';

/** Why a sensing frame carries no breathing rate. */
export type BreathingNullReason =
  /** A rate was found but nobody is present to own it (a fan's line in an empty room); other causes keep their own reason on empty seconds. */
  | 'empty'
  | 'moving'
  | 'too_short'
  | 'rate_too_low'
  | 'too_many_gaps'
  | 'no_periodicity'
  /** The strongest periodicity is an evenly spaced comb (a periodic disturbance), not chest motion. */
  | 'periodic_interference';

/** A fall found in the CSI: when it happened and how sure the estimator is. */
export interface SensingFallEvent {
  /** Wall-clock ms of the fall's peak movement. */
  time: number;
  /** Probability-like score in [0, 1] from the estimator's classifier. */
  confidence: number;
}

/**
 * One second of sensing for one link (`scope: 'link'`) or one room (`scope: 'room'`, the links combined).
 * Computed from CSI only: it works on a single link without room geometry.
 */
export interface SensingFrame {
  /** Wall-clock ms of the end of the second this frame describes. */
  time: number;
  /** Whole seconds since the source's first frame. */
  second: number;
  scope: 'link' | 'room';
  /** The room (environment) the link or links belong to. */
  environmentId: string;
  /** The link, for link frames; null for room frames. */
  link: LinkId | null;
  /** Someone is there, moving or still. */
  presence: boolean;
  state: SensingState;
  /** Movement score in [0, 1]; 0.5 is the estimator's moving/not-moving boundary. */
  motion: number;
  /** Breaths per minute of a still person, or null (see `breathingReason`). */
  breathingBpm: number | null;
  /** Why `breathingBpm` is null; null when a rate is given. */
  breathingReason: BreathingNullReason | null;
  /** Peak-to-median ratio of the breathing spectrum that produced the rate (null without a rate). */
  breathingQuality: number | null;
  activity: SensingActivity | null;
  /** Falls whose peak lies in this second. */
  falls: SensingFallEvent[];
  /** Fraction of the window's time slots that had no packet (held from a neighbour). */
  lostFraction: number;
  /** Estimator id and version, e.g. 'wiflow-sense-v1'. */
  estimatorId: string;
  /** SHA-256 (hex, first 16) of the estimator's configuration and model parameters. */
  configHash: string;
  provenance: Provenance;
}

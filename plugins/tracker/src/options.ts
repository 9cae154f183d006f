import { z } from 'zod';

/** Tracker options (node config and `MultiPersonTracker` constructor), with the pose spec's field names. */
export const TrackerOptionsSchema = z.object({
  tracking_max_age: z.number().int().min(1).max(100_000).default(30).describe('frames a lost track is still predicted and matched with the normal gate'),
  tracking_min_hits: z.number().int().min(1).max(1000).default(5).describe('matched frames before a tentative track becomes active'),
  gate_chi2: z.number().positive().default(9.21).describe('Mahalanobis gate on the predicted position (χ²₂ at 99 % = 9.21)'),
  max_gate_distance_m: z.number().positive().default(1.5).describe('a detection further than this from a track\'s prediction never matches it, however wide the Mahalanobis gate has grown'),
  acceleration_sigma: z.number().positive().default(0.8).describe('process noise: white acceleration (m/s²)'),
  measurement_sigma: z.number().positive().default(0.4).describe('floor-position error of a detection (m)'),
  keypoint_weight: z.number().min(0).max(1).default(0.3).describe('share of the keypoint (body shape) term in the assignment cost'),
  keypoint_smoothing: z.number().gt(0).max(1).default(0.6).describe('weight of the newest detection in the exponential smoothing of keypoints (1 = no smoothing)'),
  reid_window_seconds: z.number().min(0).default(10).describe('a lost track may be re-identified by a new detection for this long after it was last seen'),
  reid_distance_m: z.number().positive().default(1.5).describe('re-identification radius around where a lost track was last seen (grows by reid_speed per second lost)'),
  reid_speed: z.number().min(0).default(0.3).describe('growth of the re-identification radius (m/s)'),
  reid_max_distance_m: z.number().positive().default(3).describe('the re-identification radius never exceeds this (m)'),
  reid_min_confidence: z.number().min(0).max(1).default(0.6).describe('only detections this confident may re-identify a lost track (spurious detections are usually weak)'),
  coast_seconds: z.number().min(0).default(0.5).describe('a confirmed track the detector missed is still shown, at its predicted position with status lost, for this long (s); 0: only detected people are shown'),
  coast_velocity_decay_seconds: z.number().min(0).default(1).describe('while a track goes undetected its velocity decays with this time constant (s), so it waits where its person was last rather than walking on (0: constant velocity)'),
  birth_exclusion_m: z.number().min(0).default(0).describe('a detection nearer than this to a confirmed track it did not match starts no new track (0: off)'),
  follow_upstream_ids: z.boolean().default(true).describe('a detection that already carries a track id (an estimator that tracks, such as pose.locate) keeps that identity: one track per upstream id, shown at once and at the position the estimator gives; a new upstream id where a lost one was last seen (reid_window_seconds, reid_distance_m) continues that track; false: track every detection again'),
  handover_seconds: z.number().min(0).default(2).describe('an estimator sometimes finds a person under a new id while their old track drifts off and dies a moment later: when a followed track is lost, a track born from a new upstream id at most this long before (s), still shown within handover_m of where the lost track was last seen, takes the lost track\'s id from then on (0: off)'),
  handover_m: z.number().positive().default(3).describe('how near (m) to where a lost followed track was last seen the new track must be for the handover (handover_seconds)'),
  upstream_min_hits: z.number().int().min(1).max(1000).default(1).describe('frames an upstream id must be seen before it is shown (its track is tentative until then); 1: at once'),
  upstream_min_evidence: z.number().min(0).default(0).describe('held evidence, opt-in for lived-in rooms (a fan, a pet, a door, slow drift), like a motion sensor\'s pet immunity; 0: off (the default). An id whose detections carry evidence (pose.locate: the change its estimate explains, noise energies summed over links) is shown only once the mean of that evidence over its estimates of the last upstream_evidence_window_s (its life so far while younger; null and lost estimates count 0) reaches this; until then its persons are tentative; once shown, shown until it ends. Detections without evidence are never held. Suggested value 0.5: on the test rooms it removes most phantoms from fans, pets, doors and drift (installer rooms 410 -> 105 phantom people per hour) but costs real people (count exact 0.425 -> 0.393, three people 0.555 -> 0.432; true people detected 0.576 -> 0.554, one person 0.764 -> 0.723; shop visitors 4 -> 1 for 3), so it is off unless an installer switches it on knowingly'),
  upstream_evidence_window_s: z.number().positive().default(10).describe('seconds of estimates the held-evidence mean is taken over (upstream_min_evidence)'),
  min_confidence: z.number().min(0).max(1).default(0.3).describe('detections below this confidence are not tracked'),
  stationary_speed: z.number().min(0).default(0.2).describe('speed (over speed_window_seconds) below which a track counts as stationary (m/s)'),
  speed_window_seconds: z.number().positive().default(1).describe('window of the movement speed used by the statistics'),
  trajectory_limit: z.number().int().min(0).default(5000).describe('trajectory points kept per track (oldest dropped)'),
  ended_retention: z.number().int().min(0).default(1000).describe('ended tracks kept for the tracks accessor'),
  first_track_id: z.number().int().min(1).default(1).describe('id given to the first track (use distinct ranges when several trackers write one store)'),
}).strict();

/** Validated tracker options. */
export type TrackerOptions = z.output<typeof TrackerOptionsSchema>;
/** Tracker options as given (defaults optional). */
export type TrackerOptionsInput = z.input<typeof TrackerOptionsSchema>;

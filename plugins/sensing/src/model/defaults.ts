import type { SensingModels } from '../config.js';
import { PROFILE_FALL_MODEL } from '../falls/profile-fall-model.js';

/**
 * The shipped models, fitted on all of ../shared/data/real by `wiflow eval-real --fit` (the evaluation
 * itself refits inside every fold and never uses these; docs/sensing.md says what each input means):
 * - motion, Intel 5300: activities set, lying/sitting seconds vs walking/running/jump seconds;
 * - motion, int8 radios (ESP32 and every other format): ESP32 presence set, quiet vs movement seconds;
 * - motionSlow, Intel 5300: the same set thinned to slower links (1 packet in 2 and 4 kept), for links under motionSlowBelow packets/s;
 * - fall: activities set, each sample's strongest movement burst, falls vs the nine other activities,
 *   threshold the lowest whose leave-one-person-out false alarms stay within 5 %;
 * - profileFall: the velocity-profile fall model, kept in src/falls/profile-fall-model.json (its `fitted` says how).
 * The simulated radios (`sim`, frames of the simulator whatever chip it imitates) have their own, fitted by
 * `wiflow eval-sense-sim --fit` on simulated training rooms only, the feature set and the fall threshold
 * chosen on validation rooms (docs/sensing.md, "Evaluation on simulated rooms"); their fall candidates and
 * their breathing spectrum are read from the phase between receive chains.
 */
export const DEFAULT_SENSING_MODELS: SensingModels = {
  motion: {
    // Refitted 2026-11-27 with the byte copies counted once, as the fall model below was (it had been left at the earlier fit).
    intel5300: { features: ['log_spread', 'log_step_over_packet_step'], mean: [-2.86774, 0.158218], scale: [0.879121, 0.163714], weights: [3.6101, 1.70396], bias: 0.53275, threshold: 0.5 },
    sim: { features: ['log_pair_spread', 'log_pair_spread_over_packet_step'], mean: [-3.66778, -0.478825], scale: [0.647772, 0.352476], weights: [0.358251, 0.962102], bias: -0.898868, threshold: 0.5 },
    // Refitted 2026-11-30: the ESP32 presence set's sessions streamed baseline then movement, the inputs read against the link's own floor (its minimum over 5 min), chosen over the absolute ones by the inner folds (pilot/esp32floor-native-protocol.md).
    int8: { features: ['log_spread_minus_floor', 'log_spread_over_packet_step_minus_floor'], mean: [1.25166, 1.00168], scale: [1.16497, 0.936843], weights: [2.59744, 2.46261], bias: 0.945179, threshold: 0.5, floorQuantile: 0 },
  },
  // Fitted 2026-11-30 on the captures thinned to slower links (pilot/packet_rate.mjs: the models above read no
  // movement at a quarter of their captures' rate); a link under motionSlowBelow packets/s uses its family's.
  // Intel 5300: the activities set's still/moving captures, 1 packet in 2 and 4 (10 and 5 packets/s).
  // ESP32 (int8): the presence set, 1 packet in 2, 5, 10, 20 (53 to 5 packets/s), each input read against the link's
  // own floor (motionFloor; pilot/esp32floor-protocol.md): on absolute inputs it read another ESP32 setup's seated
  // still person as moving in every second.
  motionSlow: {
    intel5300: { features: ['log_spread', 'log_spread_over_step', 'log_spread_over_packet_step', 'log_step_over_packet_step'], mean: [-2.65525, 0.265188, -0.0944124, -0.359601], scale: [0.809042, 0.310262, 0.126449, 0.337902], weights: [5.77636, -0.286638, -1.13548, -0.161726], bias: 0.419399, threshold: 0.5 },
    int8: { features: ['log_spread_minus_floor', 'log_spread_over_step_minus_floor', 'log_spread_over_packet_step_minus_floor', 'log_step_over_packet_step_minus_floor'], mean: [0.841904, 0.156907, 0.293155, 0.165708], scale: [0.858075, 0.202457, 0.442137, 0.321858], weights: [5.12655, 0.0240105, 0.0486343, -0.0804691], bias: 0.955202, threshold: 0.5, floorQuantile: 0.25 },
  },
  motionSlowBelow: { intel5300: 14, int8: 74 },
  motionFloor: { int8: { seconds: 300 } },
  // Refitted 2026-11-30 (`wiflow eval-real --fit`) with the fall detector's full context on (its default since 2026-11-28): same procedure; the threshold the inner folds choose moved from 0.95 to 0.5.
  fall: { features: ['log_peak', 'log_base', 'log_after_over_peak', 'active_fraction', 'log_peak_over_base'], mean: [-1.98713, -3.60352, -1.2999, 0.185098, 1.61639], scale: [0.311443, 0.810674, 0.707445, 0.0872987, 0.800856], weights: [-2.49248, -0.526883, -0.330438, -0.603006, -0.435951], bias: -2.3376, threshold: 0.5 },
  // The simulated radios' two (motion `sim` above and this fall model) refitted 2026-11-27 by `wiflow eval-sense-sim --fit` after the simulator's breath-by-breath breathing and broadband sway.
  fallByFamily: {
    sim: { features: ['log_peak', 'log_base', 'log_after_over_peak', 'active_fraction', 'log_peak_over_base', 'log_before_over_peak', 'log_change_over_floor'], mean: [1.39554, -0.0498824, -1.18995, 0.174691, 1.44542, -1.1683, 0.705216], scale: [0.667977, 0.239443, 0.590133, 0.112852, 0.636585, 0.647266, 1.46365], weights: [0.371921, -0.103672, -0.18713, 0.614444, 0.429256, 0.322605, 0.505483], bias: -0.523199, threshold: 0.95 },
  },
  fallSignalByFamily: { sim: 'pairSpread' },
  // Intel 5300 links with several receive chains: falls from the time–velocity profile (src/falls/, its JSON).
  profileFall: PROFILE_FALL_MODEL,
  // Chosen on the 6 validation rooms (docs/sensing.md): the simulated radios' breathing from the conjugate products alone.
  breathingChannelsByFamily: { sim: 'pairs' },
};

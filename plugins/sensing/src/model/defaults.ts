import type { SensingModels } from '../config.js';

/**
 * The shipped models, fitted on all of ../shared/data/real by `wiflow eval-real --fit` (the evaluation
 * itself refits inside every fold and never uses these; docs/sensing.md says what each input means):
 * - motion, Intel 5300: activities set, lying/sitting seconds vs walking/running/jump seconds;
 * - motion, int8 radios (ESP32 and every other format): ESP32 presence set, quiet vs movement seconds;
 * - fall: activities set, each sample's strongest movement burst, falls vs the nine other activities,
 *   threshold the lowest whose leave-one-person-out false alarms stay within 5 %.
 */
export const DEFAULT_SENSING_MODELS: SensingModels = {
  motion: {
    intel5300: { features: ['log_spread', 'log_step_over_packet_step'], mean: [-2.87004, 0.155993], scale: [0.87678, 0.162561], weights: [3.64081, 1.69865], bias: 0.516841, threshold: 0.5 },
    int8: { features: ['log_step_over_packet_step'], mean: [0.879605], scale: [0.74425], weights: [3.47889], bias: -0.0380188, threshold: 0.5 },
  },
  fall: { features: ['log_peak', 'log_base', 'log_after_over_peak', 'active_fraction', 'log_peak_over_base'], mean: [-1.94864, -3.49729, -1.22288, 0.201819, 1.54865], scale: [0.299565, 0.683624, 0.667675, 0.102178, 0.671711], weights: [-2.50477, -0.918875, -0.403983, -0.178954, -0.181884], bias: -2.52337, threshold: 0.95 },
};

import { PoseErrors } from '../errors.js';
import { loadSim, type SimModule } from '../sim/pose-dataset.js';

/** A scenario of the simulator's dataset plan. */
export type PlanScenario = ReturnType<SimModule['planDataset']>['sessions'][number]['scenario'];

/**
 * The hardware a locator is fitted or evaluated on: a `--profile` name of `wiflow eval-e2e`
 * (`recipe`, `recipe+4rx`, `recipe+2tx`, a chip…) and what it does to each planned room.
 */
export interface HardwareProfile {
  name: string;
  apply(scenario: PlanScenario): PlanScenario;
  /** A simulator propagation what-if `apply` also merges in (propagation-whatif.ts); absent on every real profile. */
  propagationWhatIf?: Record<string, unknown>;
}

/** The rooms as the recipe draws them: 3 links of Intel 5300 1×3 HT20 (what the shipped locator was fitted on). */
export const RECIPE_PROFILE: HardwareProfile = { name: 'recipe', apply: (scenario) => scenario };

/** The slice of @wiflow/plugin-sim a profile needs (beside what the dataset code loads). */
interface ProfileModule {
  parseProfile(name: string): unknown;
  applyEvaluationProfile(scenario: unknown, profile: unknown): unknown;
}

/**
 * The hardware profile of that name, as eval-e2e and plan-hardware apply it (same radios, same
 * added receiver or transmitter): the simulator's one definition, loaded on demand like the rest
 * of it. `recipe` needs nothing loaded; an unknown name is the simulator's
 * WIFLOW_SIM_PROFILE_UNKNOWN, listing the known ones.
 */
export async function loadHardwareProfile(name: string, given?: SimModule): Promise<HardwareProfile> {
  if (name === 'recipe') return RECIPE_PROFILE;
  const module = (await loadSim(given)) as SimModule & Partial<ProfileModule>;
  if (typeof module.parseProfile !== 'function' || typeof module.applyEvaluationProfile !== 'function') throw PoseErrors.profilesMissing('it does not export parseProfile and applyEvaluationProfile');
  const profile = module.parseProfile(name);
  const applyProfile = module.applyEvaluationProfile;
  return { name, apply: (scenario) => applyProfile(scenario, profile) as PlanScenario };
}

/** The profile a locator model was fitted on (`training.profile`; models fitted before it was recorded: `recipe`). */
export function fittedProfileName(training: Record<string, unknown>): string {
  return typeof training.profile === 'string' ? training.profile : 'recipe';
}

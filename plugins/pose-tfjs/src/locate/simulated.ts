import { evaluateSamples, meanPose, scoredPairs, type EvaluatedSample, type EvaluationReport } from '../eval/metrics.js';
import { environmentFromScenario } from '../sim/environment-from-scenario.js';
import { loadSim, splitSessions, type SimModule, type SplitSelection } from '../sim/pose-dataset.js';
import { DatasetRecipeSchema, type DatasetRecipe } from '../sim/recipe.js';
import { PoseLocator, type LocatedInstant } from './locator.js';
import { COUNT_FEATURES, countFeatureSize, trainCountHead, type LocatorModel, type LocatorModelSpec } from './locator-model.js';
import { PeopleTrackerSettingsSchema } from './people-tracker.js';
import { RECIPE_PROFILE, type HardwareProfile } from './hardware-profile.js';
import { ReferenceRecorder, type EmptyRoomReference } from './reference.js';

/** Seconds of empty room the simulator records as each room's reference (an installer's capture). */
export const REFERENCE_SECONDS = 2;

/**
 * The empty-room reference of a simulated room, `seconds` long: the simulator's reference phase
 * of the scenario — nobody in it and, where the scenario has `drift`, the room as installed
 * (furniture and doors where they were, radios before re-plugging, the reference's own hardware
 * draws). Without drift that is the same scenario with nobody in it: same radios, hardware draws
 * and noise process.
 */
export function simulateReference(sim: SimModule, scenario: { environmentId: string; people?: unknown[] }, seconds = REFERENCE_SECONDS): EmptyRoomReference {
  const recorder = new ReferenceRecorder(scenario.environmentId, `simulator: empty room, ${seconds} s`);
  const simulator = new sim.Simulator({ ...scenario, people: [] }, { phase: 'reference' });
  for (const tick of simulator.run(seconds)) for (const frame of tick.frames) recorder.push(frame);
  return recorder.build();
}

/**
 * Locate people in the sessions of one split of a recipe's plan (the same rooms the pose
 * model's recipe splits into train / validation / test), each room with `profile`'s hardware
 * (default: as drawn), yielding every estimate.
 */
export async function* locateSplit(model: LocatorModel, recipe: DatasetRecipe, selection: SplitSelection, onSession?: (done: number, total: number) => void, profile: HardwareProfile = RECIPE_PROFILE): AsyncGenerator<LocatedInstant & { sessionId: string }> {
  const sim = await loadSim(selection.sim);
  const sessions = splitSessions(sim, recipe, selection);
  let done = 0;
  for (const session of sessions) {
    onSession?.(done, sessions.length);
    const scenario = profile.apply(session.scenario);
    const environment = environmentFromScenario(scenario);
    const reference = simulateReference(sim, scenario as never);
    const locator = new PoseLocator(model, [environment], [reference], { densePose: 'none', processingMode: 'job' });
    const seconds = Math.min(recipe.secondsPerSession, selection.maxSeconds ?? Infinity);
    for (const tick of new sim.Simulator(scenario).run(seconds)) {
      for (const frame of tick.frames) {
        const instant = locator.locate(frame);
        if (instant) yield { ...instant, sessionId: session.sessionId };
      }
    }
    done++;
    onSession?.(done, sessions.length);
  }
}

/** The simulator's realism levels (`--realism`): 'none' is the rooms the shipped figures were made on. */
export type RealismLevel = 'none' | 'v2';

/**
 * A recipe whose rooms are drawn at a realism level ('none' leaves it as it is, so its rooms stay
 * byte for byte), optionally keeping only some groups of effects (distractors, drift, radios).
 */
export function withRealism(recipe: DatasetRecipe, realism: RealismLevel = 'none', effects?: readonly string[]): DatasetRecipe {
  if (realism === 'none') return recipe;
  return { ...recipe, ranges: { ...recipe.ranges, realism, ...(effects ? { realismEffects: effects } : {}) } };
}

/** Floor errors of one person-count bucket: mean, median and 90th percentile (metres), over matched people. */
export interface FloorErrorDistribution {
  people: number;
  mean: number | null;
  median: number | null;
  p90: number | null;
}

/** Mean, median and 90th percentile of floor errors per bucket (`1`, `2`, `3`, `all`). */
export function floorErrorDistribution(errors: Map<string, number[]>): Record<string, FloorErrorDistribution> {
  const out: Record<string, FloorErrorDistribution> = {};
  for (const [key, values] of [...errors.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const sorted = Float64Array.from(values).sort();
    const at = (q: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : null);
    out[key] = { people: sorted.length, mean: sorted.length ? sorted.reduce((a, b) => a + b, 0) / sorted.length : null, median: at(0.5), p90: at(0.9) };
  }
  return out;
}

/** Score a locator on a split (with `profile`'s hardware), per true person count, next to the two mean-pose baselines. */
export async function evaluateLocator(model: LocatorModel, selection: SplitSelection, onSession?: (done: number, total: number) => void, realism: RealismLevel = 'none', effects?: readonly string[], profile: HardwareProfile = RECIPE_PROFILE): Promise<{ report: EvaluationReport; samples: number; rooms: number; floorErrorM: Record<string, FloorErrorDistribution>; perRoom: RoomFigures[] }> {
  const recipe = withRealism(DatasetRecipeSchema.parse(model.spec.training.dataset ?? {}), realism, effects);
  const samples: EvaluatedSample[] = [];
  const rooms = new Map<string, EvaluatedSample[]>();
  const errors = new Map<string, number[]>();
  for await (const instant of locateSplit(model, recipe, selection, onSession, profile)) {
    if (!instant.truth) continue;
    samples.push({ environment: instant.environment, truth: instant.truth.persons, predicted: instant.hypotheses, presenceThreshold: model.spec.presenceThreshold });
    if (!rooms.has(instant.environment.id)) rooms.set(instant.environment.id, []);
    rooms.get(instant.environment.id)!.push(samples[samples.length - 1]);
    // The same pairs as the report's floor error.
    for (const [truth, hypothesis] of scoredPairs(samples[samples.length - 1])) {
      const error = Math.hypot(truth.position.x - hypothesis.position.x, truth.position.y - hypothesis.position.y);
      for (const key of [String(instant.truth.persons.length), 'all']) {
        if (!errors.has(key)) errors.set(key, []);
        errors.get(key)!.push(error);
      }
    }
  }
  const perRoom = [...rooms.entries()].map(([room, own]) => {
    const all = evaluateSamples(own, model.spec.meanPose).model.all;
    const roomErrors = own.flatMap((sample) => scoredPairs(sample).map(([truth, hypothesis]) => Math.round(1000 * Math.hypot(truth.position.x - hypothesis.position.x, truth.position.y - hypothesis.position.y)) / 1000));
    return { room, samples: all.samples, countExact: all.countAccuracy, people: all.persons, floorErrorM: all.floorErrorM, floorErrorsM: roomErrors };
  });
  return { report: evaluateSamples(samples, model.spec.meanPose), samples: samples.length, rooms: rooms.size, floorErrorM: floorErrorDistribution(errors), perRoom };
}

/**
 * One room's share of an evaluation (all people counts): what a bootstrap over rooms resamples.
 * The split's figures are these pooled: count exact weighted by samples, floor error by people.
 */
export interface RoomFigures {
  room: string;
  samples: number;
  countExact: number;
  /** True people paired with a hypothesis (the floor error's mean is over them). */
  people: number;
  floorErrorM: number | null;
  /** Each paired person's floor error (m, to the millimetre): medians and tails of pooled rooms, which their means cannot give. */
  floorErrorsM: number[];
}

/** People reported in rooms with nobody in them (`wiflow locate eval --empty-room <seconds>`). */
export interface EmptyRoomReport {
  rooms: number;
  /** Simulated seconds in all. */
  seconds: number;
  /** People that appeared: every rise of the reported count (a confirmed track's birth). */
  phantomPeople: number;
  phantomPeoplePerHour: number;
  /** Share of estimates that reported anyone. */
  estimatesWithPeople: number;
}

/**
 * The split's rooms with nobody in them, `seconds` each, through the locator as a user runs it
 * (people above the presence threshold): how often it invents someone.
 */
export async function evaluateEmptyRooms(model: LocatorModel, selection: SplitSelection, seconds: number, realism: RealismLevel = 'none', effects?: readonly string[], profile: HardwareProfile = RECIPE_PROFILE): Promise<EmptyRoomReport> {
  const recipe = withRealism(DatasetRecipeSchema.parse(model.spec.training.dataset ?? {}), realism, effects);
  const sim = await loadSim(selection.sim);
  const sessions = splitSessions(sim, recipe, selection);
  let phantomPeople = 0, estimates = 0, withPeople = 0;
  for (const session of sessions) {
    const scenario = profile.apply({ ...session.scenario, people: [] } as typeof session.scenario);
    const locator = new PoseLocator(model, [environmentFromScenario(scenario)], [simulateReference(sim, scenario as never)], { densePose: 'none', processingMode: 'job' });
    let previous = 0;
    for (const tick of new sim.Simulator(scenario).run(seconds)) {
      for (const frame of tick.frames) {
        const pose = locator.push(frame);
        if (!pose) continue;
        estimates++;
        const count = pose.persons.length;
        if (count > 0) withPeople++;
        phantomPeople += Math.max(0, count - previous);
        previous = count;
      }
    }
  }
  const total = sessions.length * seconds;
  return { rooms: sessions.length, seconds: total, phantomPeople, phantomPeoplePerHour: total ? (phantomPeople * 3600) / total : 0, estimatesWithPeople: estimates ? withPeople / estimates : 0 };
}

/** The imaging settings, estimate rate and tracker of the shipped locator (wiflow-locate-v2). */
export const DEFAULT_LOCATOR: Pick<LocatorModelSpec, 'imaging' | 'hopPackets' | 'presenceThreshold' | 'tracker'> = {
  // A point scatterer at 0.9 m, as v1: the body forward model (heights 0.3, 0.9, 1.5 m) helped on
  // training rooms and hurt on validation rooms (pilot in FINDINGS.md), so it is not the default.
  // A re-plugged receiver's new chain phases: one gain per receive chain held over 30 s, outside a
  // dead band of 0.2 (chosen on validation rooms by drift2-protocol.md's rule, 2.3.0; FINDINGS.md).
  // Peaks picked on Capon's minimum-variance power, loaded at the noise power (capon-protocol.md: confirmed on
  // fresh validation rooms and passed the test rooms' guard, 2.4.0).
  imaging: { gridStepM: 0.2, heightsM: [0.9], packets: 8, separationM: 0.8, cleanRadiusM: 0, maxPersons: 3, scatterer: 'point', minPacketIntervalS: 0.045, staticChainGain: { windowS: 30, minDeviation: 0.2 }, scorer: 'capon', caponLoading: 1 },
  hopPackets: 5,
  presenceThreshold: 0.5,
  // Births need change energy 0.1 (log ratio) above the room's own empty-room noise energy: chosen
  // on validation rooms, fresh ones included, by births-protocol.md's rule (2.2.0; FINDINGS.md).
  tracker: PeopleTrackerSettingsSchema.parse({ birthAboveNoise: 0.1 }),
};

/**
 * Fit a locator on the training rooms of a recipe, each with `profile`'s hardware (default: as
 * drawn): image them, train the count head on the CLEAN energy features against the true
 * counts, and take the training people's mean pose. The profile's name is recorded
 * (`training.profile`), so `wiflow locate eval` scores the model on the hardware it was fitted for.
 */
export async function fitLocator(options: { modelId: string; version: string; recipe: Partial<DatasetRecipe>; trainSessions?: number; seed?: number; sim?: SimModule; onSession?: (done: number, total: number) => void; settings?: Partial<typeof DEFAULT_LOCATOR>; profile?: HardwareProfile }): Promise<LocatorModelSpec> {
  const settings = { ...DEFAULT_LOCATOR, ...options.settings };
  const started = Date.now();
  const recipe = DatasetRecipeSchema.parse(options.recipe);
  const seed = options.seed ?? 1;
  const width = countFeatureSize(settings.imaging);
  const provisional: LocatorModel = {
    spec: {
      format: 'wiflow-locator/1', modelId: options.modelId, version: options.version, description: '', ...settings, tracker: undefined,
      countHead: { features: COUNT_FEATURES, featureMean: Array(width).fill(0), featureStd: Array(width).fill(1), layers: [{ weights: Array.from({ length: width }, () => [0]), bias: [0], activation: 'linear' }] },
      meanPose: Array.from({ length: 17 }, () => [0, 0, 0]), training: {},
    },
    hash: '', directory: '',
  };
  const features: number[][] = [];
  const counts: number[] = [];
  const persons = [];
  const rooms = new Set<string>();
  const profile = options.profile ?? RECIPE_PROFILE;
  for await (const instant of locateSplit(provisional, recipe, { split: 'train', maxSessions: options.trainSessions, sim: options.sim }, options.onSession, profile)) {
    if (!instant.truth) continue;
    rooms.add(instant.environment.id);
    features.push(instant.features);
    counts.push(instant.truth.persons.length);
    persons.push(...instant.truth.persons);
  }
  const countHead = await trainCountHead(features, counts, { maxPersons: settings.imaging.maxPersons, seed, epochs: 2000, learningRate: 0.01 });
  return {
    format: 'wiflow-locator/1',
    modelId: options.modelId,
    version: options.version,
    description: 'Raw CSI of every link of a room + a per-link empty-room reference → up to 3 people: floor position by coherent back-projection against a forward model of a body, count by a learned head, people and count by a tracker over the estimates, skeleton = the training mean pose at that position. Fitted on simulated rooms only.',
    ...settings,
    countHead,
    meanPose: meanPose(persons),
    training: { dataset: recipe, split: 'train', profile: profile.name, ...(profile.propagationWhatIf ? { propagationWhatIf: profile.propagationWhatIf } : {}), rooms: rooms.size, samples: features.length, seed, referenceSeconds: REFERENCE_SECONDS, seconds: Math.round((Date.now() - started) / 1000) },
  };
}

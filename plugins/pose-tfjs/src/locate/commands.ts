import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { CliContext } from '@wiflow/core';
import { Option, type Command } from 'commander';
import { setupBackend } from '../backend/backend.js';
import { formatEvaluation } from '../eval/format.js';
import { SMALL_SELECTION } from '../eval/evaluate-split.js';
import { EnvironmentGeometrySchema, type EnvironmentGeometry } from '../model/environment.js';
import { environmentFromScenarioFile } from '../sim/environment-from-scenario.js';
import { loadSim, SECOND_VALIDATION_SEED_SUFFIX, SPLIT_NAMES, type SplitName } from '../sim/pose-dataset.js';
import { ImagingSettingsSchema, loadLocatorModel, SHIPPED_LOCATOR_DIR, writeLocatorModel, type LocatorModelSpec } from './locator-model.js';
import { readReference, ReferenceRecorder, writeReference } from './reference.js';
import { referenceForEnvironment } from './reference-check.js';
import { fitTwinCount, TWIN_COUNT } from './twin-count.js';
import { loadSimulator } from '../room-pose/protocol.js';
import { registerCheckCommand, registerRecordCommand } from './record-command.js';
import { DEFAULT_LOCATOR, evaluateEmptyRooms, evaluateLocator, fitLocator, simulateReference } from './simulated.js';
import { writeLocatorCard, type RecordedEvaluation } from './locator-card.js';
import { SHIPPED_MODEL_DIR } from '../model/pose-model.js';
import { MODEL_SPEC_JSON, type ModelSpec } from '../model/contract.js';
import type { DatasetRecipe } from '../sim/recipe.js';
import { fittedProfileName, loadHardwareProfile } from './hardware-profile.js';
import { PeopleTrackerSettingsSchema } from './people-tracker.js';
import { parsePropagationWhatIf, withPropagationWhatIf, type PropagationWhatIf } from './propagation-whatif.js';

/** An environment from a JSON geometry file or a simulator scenario file. */
async function readEnvironment(file: string): Promise<EnvironmentGeometry> {
  if (/\.ya?ml$/i.test(file)) return environmentFromScenarioFile(file);
  const raw = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  if ('radios' in raw) return environmentFromScenarioFile(file);
  return EnvironmentGeometrySchema.parse(raw);
}

/** `--whatif-propagation`, hidden: a validation what-if on the simulator, never a user setting. */
function whatIfOption(): Option {
  return new Option('--whatif-propagation <json>', 'validation only: merge these fields into every simulated room\'s propagation (e.g. the reverberant body), the empty-room reference\'s included').argParser(parsePropagationWhatIf).hideHelp();
}

/** Register `wiflow locate reference|fit|eval`. */
export function registerLocateCommands(program: Command, cli: CliContext): void {
  const locate = program.command('locate').description('the empty-room locator (pose.locate): record references, fit, evaluate');

  locate
    .command('reference')
    .description('record an empty-room reference for pose.locate from a capture of the room with nobody in it (or simulate one for a scenario)')
    .requiredOption('--environment <file>', 'environment geometry (JSON) or simulator scenario (JSON/YAML)')
    .option('--capture <file>', 'a capture of the empty room in any format @wiflow/plugin-csi reads')
    .option('--simulate <seconds>', 'simulate the scenario\'s empty room instead of reading a capture', (v) => Number(v))
    .requiredOption('--out <file>', 'reference file to write (wiflow-empty-room/1 JSON)')
    .action(async (opts: { environment: string; capture?: string; simulate?: number; out: string }) => {
      await cli.runtime();
      const environment = await readEnvironment(opts.environment);
      let reference;
      if (opts.simulate) {
        const sim = (await loadSim()) as Awaited<ReturnType<typeof loadSim>> & { loadScenario(file: string): unknown };
        reference = simulateReference(sim, sim.loadScenario(opts.environment) as never, opts.simulate);
      } else {
        if (!opts.capture) throw new Error('give --capture <file> (or --simulate <seconds> for a scenario)');
        const { openCapture } = await import('@wiflow/plugin-csi');
        const recorder = new ReferenceRecorder(environment.id, path.basename(opts.capture));
        const links = new Set(environment.links.map((l) => `${l.tx}->${l.rx}`));
        for await (const frame of await openCapture(opts.capture)) if (links.has(`${frame.link.tx}->${frame.link.rx}`)) recorder.push(frame);
        reference = recorder.build();
      }
      writeReference(path.resolve(opts.out), reference);
      cli.print(`wrote ${opts.out}: ${reference.links.map((l) => `${l.tx}->${l.rx} ${l.packets} packets`).join(', ')}`);
    });
  registerRecordCommand(locate, cli, readEnvironment);
  registerCheckCommand(locate, cli, readEnvironment);

  locate
    .command('fit')
    .description('fit the locator on simulated training rooms (with a hardware profile\'s radios): image them, train the count head (TF.js), take the mean pose')
    // Required, so a fit never lands on the shipped model by a default path.
    .requiredOption('--out <dir>', 'model directory to write (locator.json)')
    .option('--profile <name>', 'hardware of the training rooms, as `wiflow eval-e2e --profile` names it: recipe (3 links, what the shipped locator was fitted on), recipe+4rx (a fourth receiver), recipe+2tx (a second transmitter), a chip…', 'recipe')
    .option('--train-sessions <n>', 'training sessions of the plan to fit on (the shipped locator: 40)', (v) => Number(v), 40)
    .option('--seed <n>', 'seed of the count head', (v) => Number(v), 1)
    // Not `--version`: the wiflow program's own --version (print and exit) takes that flag wherever it stands.
    .option('--model-version <v>', 'version written into locator.json', '2.4.0')
    .addOption(whatIfOption())
    .option('--imaging <json>', "imaging settings merged over the shipped ones (a JSON object, e.g. '{\"scorer\":\"capon\"}'); the count head is fitted on what they image")
    .option('--birth-above-noise <margin>', `the tracker's birth rule: change energy (log ratio) a new person needs above the room's empty-room noise (shipped: ${String(DEFAULT_LOCATOR.tracker?.birthAboveNoise)}, chosen on 3-link validation rooms)`, (v) => Number(v))
    .action(async (opts: { out: string; profile: string; trainSessions: number; seed: number; birthAboveNoise?: number; whatifPropagation?: PropagationWhatIf; imaging?: string; modelVersion: string }) => {
      if (!Number.isInteger(opts.trainSessions) || opts.trainSessions < 1) throw new Error(`--train-sessions must be a whole number ≥ 1, got ${String(opts.trainSessions)}`);
      const imaging = opts.imaging === undefined ? undefined : imagingOverride(opts.imaging);
      if (opts.birthAboveNoise !== undefined && !Number.isFinite(opts.birthAboveNoise)) throw new Error('--birth-above-noise must be a number');
      const hardware = await loadHardwareProfile(opts.profile);
      const profile = opts.whatifPropagation ? withPropagationWhatIf(hardware, opts.whatifPropagation) : hardware;
      await cli.runtime();
      await setupBackend();
      // The pose network's recipe: the same rooms, so its test rooms stay unseen here too.
      const recipe = (JSON.parse(readFileSync(path.join(SHIPPED_MODEL_DIR, MODEL_SPEC_JSON), 'utf8')) as ModelSpec).training.dataset as Partial<DatasetRecipe>;
      const tracker = opts.birthAboveNoise === undefined ? undefined : PeopleTrackerSettingsSchema.parse({ ...DEFAULT_LOCATOR.tracker, birthAboveNoise: opts.birthAboveNoise });
      const spec = await fitLocator({ modelId: path.basename(path.resolve(opts.out)), version: opts.modelVersion, recipe, profile, trainSessions: opts.trainSessions, seed: opts.seed, settings: { ...(tracker ? { tracker } : {}), ...(imaging ? { imaging } : {}) }, onSession: (done, total) => { if (done === total) cli.print(`imaged ${total} training sessions (profile ${profile.name})`); } });
      mkdirSync(opts.out, { recursive: true });
      writeLocatorModel(opts.out, spec);
      const model = loadLocatorModel(opts.out);
      cli.print(`wrote ${opts.out} (sha256 ${model.hash}); profile ${profile.name}${opts.whatifPropagation ? `, propagation what-if ${JSON.stringify(opts.whatifPropagation)}` : ''}; count head on ${String(spec.training.samples)} samples from ${String(spec.training.rooms)} rooms`);
    });

  locate
    .command('twin-fit')
    .description("installer step: simulate the room's twin (its declared room and radios, guessed materials, no furniture), fit the count head's per-room correction on it, and write a locator for this environment only")
    .requiredOption('--environment <file>', 'environment geometry (JSON) or simulator scenario (JSON/YAML) of the room')
    .requiredOption('--reference <file>', "the room's empty-room reference (wiflow-empty-room/1: `wiflow locate record` or `locate reference`)")
    // Required, so a fit never lands on the shipped model by a default path.
    .requiredOption('--out <dir>', "model directory to write (locator.json), this environment's own")
    .option('--model <dir>', 'the general locator to correct (default: the shipped wiflow-locate-v2)')
    .option('--twin-sessions <n>', `simulated twin sessions (session k holds k mod 4 people; chosen on validation rooms: ${TWIN_COUNT.sessions})`, (v) => Number(v), TWIN_COUNT.sessions)
    .option('--twin-seconds <s>', `seconds of each twin session (${TWIN_COUNT.seconds})`, (v) => Number(v), TWIN_COUNT.seconds)
    .action(async (opts: { environment: string; reference: string; out: string; model?: string; twinSessions: number; twinSeconds: number }) => {
      if (!Number.isInteger(opts.twinSessions) || opts.twinSessions < 1) throw new Error(`--twin-sessions must be a whole number ≥ 1, got ${String(opts.twinSessions)}`);
      if (!(opts.twinSeconds > 0)) throw new Error(`--twin-seconds must be a positive number, got ${String(opts.twinSeconds)}`);
      await cli.runtime();
      const environment = await readEnvironment(opts.environment);
      // A reference of another room, or one that does not fit a link, fails here naming the link and field.
      const reference = referenceForEnvironment(environment, [readReference(path.resolve(opts.reference))]);
      const base = loadLocatorModel(path.resolve(opts.model ?? SHIPPED_LOCATOR_DIR));
      const sim = await loadSimulator();
      const { spec, record } = fitTwinCount(sim, environment, reference, base, { sessions: opts.twinSessions, seconds: opts.twinSeconds, onSession: (done, total) => cli.print(`twin session ${done}/${total} simulated and imaged`) });
      mkdirSync(opts.out, { recursive: true });
      writeLocatorModel(opts.out, spec);
      const model = loadLocatorModel(opts.out);
      cli.print(`count head bias ${record.countBias.map((v) => v.toFixed(2)).join(' / ')} (0 … ${record.countBias.length - 1} people), birth margin ${record.birthAboveNoise}; on the twin count exact ${record.twinCountAccuracy.before.toFixed(3)} → ${record.twinCountAccuracy.after.toFixed(3)}; ${record.cpuSeconds.toFixed(1)} CPU-seconds`);
      cli.print(`wrote ${opts.out} (${spec.modelId}, sha256 ${model.hash}) for environment ${environment.id} only: give it to that room's pose.locate as \`model\``);
    });

  locate
    .command('eval')
    .description('evaluate a locator on simulated rooms never used to fit it, per person-count bucket, next to two mean-pose baselines')
    .option('--json', 'print the figures as JSON (the keys of `wiflow eval --json`)', false)
    .option('--split <name>', `dataset split: ${SPLIT_NAMES.join(', ')} (val2, val3, val4: further validation splits of fresh rooms, each drawn like test with the seed <recipe seed>:<split>, e.g. <recipe seed>${SECOND_VALIDATION_SEED_SUFFIX})`, 'test')
    .option('--per-room', 'with --json: add each room\'s count exact, floor error and each paired person\'s floor error (perRoom), for a bootstrap over rooms', false)
    .option('--small', 'a small deterministic subset of the split (what CI runs)', false)
    .option('--model <dir>', 'locator directory (default: the shipped wiflow-locate-v2)')
    .option('--profile <name>', 'hardware of the rooms, as `wiflow eval-e2e --profile` names it (default: the profile the model was fitted on, its training.profile; recipe for the shipped one)')
    .option('--write <file>', 'also write the JSON report to this file')
    .option('--realism <level>', 'simulator realism of the rooms: none (what the card reports) or v2 (distractors, drift between reference and recording, radios as they are)', 'none')
    .option('--realism-effects <list>', 'with --realism v2: keep only these groups, comma-separated: distractors, drift, radios')
    .option('--empty-room <seconds>', 'instead: run each room of the split with nobody in it for this long and count the people reported (phantoms per hour)', (v) => Number(v))
    .addOption(whatIfOption())
    .action(async (opts: { json: boolean; split: string; small: boolean; perRoom: boolean; model?: string; profile?: string; write?: string; realism: string; realismEffects?: string; emptyRoom?: number; whatifPropagation?: PropagationWhatIf }) => {
      await cli.runtime();
      if (!(SPLIT_NAMES as readonly string[]).includes(opts.split)) throw new Error(`--split must be one of ${SPLIT_NAMES.join(', ')}, got ${opts.split}`);
      if (opts.realism !== 'none' && opts.realism !== 'v2') throw new Error(`--realism must be none or v2, got ${opts.realism}`);
      const started = Date.now();
      const model = loadLocatorModel(path.resolve(opts.model ?? SHIPPED_LOCATOR_DIR));
      const hardware = await loadHardwareProfile(opts.profile ?? fittedProfileName(model.spec.training));
      const profile = opts.whatifPropagation ? withPropagationWhatIf(hardware, opts.whatifPropagation) : hardware;
      // Recorded only when given, so the JSON without the what-if stays as it was.
      const whatIf = opts.whatifPropagation ? { propagationWhatIf: opts.whatifPropagation } : {};
      const selection = opts.small ? { split: opts.split as SplitName, ...SMALL_SELECTION } : { split: opts.split as SplitName };
      const effects = opts.realismEffects?.split(',').map((e) => e.trim()).filter(Boolean);
      if (effects && opts.realism === 'none') throw new Error('--realism-effects needs --realism v2');
      if (opts.emptyRoom !== undefined) {
        if (!(opts.emptyRoom > 0)) throw new Error(`--empty-room must be a positive number of seconds, got ${String(opts.emptyRoom)}`);
        const empty = await evaluateEmptyRooms(model, selection, opts.emptyRoom, opts.realism as 'none', effects, profile);
        const json = JSON.stringify({ modelId: model.spec.modelId, modelHash: model.hash, profile: profile.name, split: opts.split, small: opts.small, ...(opts.realism !== 'none' ? { realism: opts.realism } : {}), ...whatIf, emptyRoom: empty, seconds: (Date.now() - started) / 1000 }, null, 2);
        if (opts.write) writeFileSync(opts.write, `${json}\n`);
        if (opts.json) cli.print(json);
        else cli.print(`${model.spec.modelId} (${model.hash.slice(0, 12)}): ${empty.phantomPeople} people reported in ${empty.rooms} empty ${opts.split} rooms over ${empty.seconds} simulated s = ${empty.phantomPeoplePerHour.toFixed(1)} per hour; ${(100 * empty.estimatesWithPeople).toFixed(1)} % of estimates reported anyone`);
        return;
      }
      const { report, samples, rooms, floorErrorM, perRoom } = await evaluateLocator(model, selection, undefined, opts.realism, effects, profile);
      const description = {
        modelId: model.spec.modelId, modelHash: model.hash, profile: profile.name, split: opts.split, small: opts.small, samples, rooms, backend: 'js', seconds: (Date.now() - started) / 1000,
        ...(opts.realism !== 'none' ? { realism: opts.realism } : {}),
        ...(effects ? { realismEffects: effects } : {}),
        ...whatIf,
      };
      const json = JSON.stringify({ ...description, ...report, floorErrorM, ...(opts.perRoom ? { perRoom } : {}) }, null, 2);
      if (opts.write) writeFileSync(opts.write, `${json}\n`);
      if (opts.json) cli.print(json);
      else {
        cli.print(`${description.modelId} (${model.hash.slice(0, 12)}) on ${samples} ${opts.split} samples from ${rooms} unseen rooms, profile ${profile.name}${opts.small ? ' (small subset)' : ''}${opts.realism !== 'none' ? `, simulator realism ${opts.realism}` : ''}${opts.whatifPropagation ? `, propagation what-if ${JSON.stringify(opts.whatifPropagation)}` : ''}`);
        for (const line of formatEvaluation(report)) cli.print(line);
        for (const [key, d] of Object.entries(floorErrorM)) cli.print(`floor error, ${key} ${key === 'all' ? 'people' : 'true people'}: mean ${d.mean?.toFixed(2) ?? '—'} m, median ${d.median?.toFixed(2) ?? '—'} m, p90 ${d.p90?.toFixed(2) ?? '—'} m (${d.people} people matched)`);
      }
    });

  locate
    .command('card')
    .description('write MODEL_CARD.md of a locator from locator.json, its recorded evaluations and FINDINGS.md (beside the shipped pose network\'s test figures)')
    .option('--model <dir>', 'locator directory (default: the shipped wiflow-locate-v2)')
    .action(async (opts: { model?: string }) => {
      await cli.runtime();
      const dir = path.resolve(opts.model ?? SHIPPED_LOCATOR_DIR);
      const network = path.join(SHIPPED_MODEL_DIR, 'eval-test.json');
      const comparison = existsSync(network) ? (JSON.parse(readFileSync(network, 'utf8')) as RecordedEvaluation) : undefined;
      cli.print(`wrote ${writeLocatorCard(dir, comparison)}`);
    });
}

/** `locate fit --imaging`: a JSON object merged over the shipped imaging settings, checked as `locator.json` checks them. */
function imagingOverride(text: string): LocatorModelSpec['imaging'] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`--imaging must be a JSON object: ${(error as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('--imaging must be a JSON object');
  const parsed = ImagingSettingsSchema.strict().safeParse({ ...DEFAULT_LOCATOR.imaging, ...(value as object) });
  if (!parsed.success) throw new Error(`--imaging: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ')}`);
  return parsed.data as LocatorModelSpec['imaging'];
}

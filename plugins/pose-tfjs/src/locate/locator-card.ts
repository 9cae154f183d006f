import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { checkGoals, evaluationTable, FINDINGS_FILE } from '../eval/model-card.js';
import type { EvaluationReport } from '../eval/metrics.js';
import { loadLocatorModel } from './locator-model.js';
import type { EmptyRoomReport, FloorErrorDistribution } from './simulated.js';
import { ratePerHour } from '../eval/poisson-bound.js';

/** An evaluation report as `wiflow locate eval --write` records it (the floor error distribution from wiflow-locate-v2 on). */
export type RecordedEvaluation = EvaluationReport & { modelId: string; modelHash: string; samples: number; rooms: number; seconds: number; floorErrorM?: Record<string, FloorErrorDistribution> };

/** `wiflow locate eval --empty-room <s> --write` as recorded. */
type RecordedEmptyRoom = { modelHash: string; small: boolean; emptyRoom: EmptyRoomReport };

/** `wiflow eval-e2e --empty-only --empty-conditions as-drawn --write` as recorded: the whole chain (this locator → `tracker.track`), a phantom being a confirmed track. */
type RecordedEmptyHours = { hash: string; split: string; emptyRoom: { condition: string; rooms: number; secondsPerRoom: number; simulatedSeconds: number; falseTracks: number; upper95PerHour: number } };

/** The goal's row on phantoms: the end-to-end hours where recorded (what the issue measures), else the locator alone. */
function phantomRow(empty: RecordedEmptyRoom | null, hours: RecordedEmptyHours | null): [string, boolean | null] {
  if (hours) {
    const e = hours.emptyRoom;
    return [`${f1(e.falseTracks / (e.simulatedSeconds / 3600))} (${e.falseTracks} in ${e.rooms} ${hours.split} rooms × ${e.secondsPerRoom} s = ${f2(e.simulatedSeconds / 3600)} h as drawn, end to end: \`wiflow eval-e2e --empty-only\`, \`eval-e2e-test-empty-as-drawn.json\`; 95 % upper bound ${f2(e.upper95PerHour)} per hour: met only when the bound is ≤ 1; with a fan, a cat and a door, or with drift, hundreds per hour: FINDINGS)`, e.upper95PerHour <= 1];
  }
  if (!empty) return ['not recorded', null];
  return [`${empty.emptyRoom.phantomPeoplePerHour.toFixed(1)} (${empty.emptyRoom.phantomPeople} in ${empty.emptyRoom.rooms} ${empty.small ? 'rooms of the small subset' : 'rooms'} × ${empty.emptyRoom.seconds / empty.emptyRoom.rooms} s, \`eval-test-empty-room.json\`; 95 % upper bound ${f1(ratePerHour(empty.emptyRoom.phantomPeople, empty.emptyRoom.seconds).upper95PerHour)} per hour: met only when the bound is ≤ 1)`, (ratePerHour(empty.emptyRoom.phantomPeople, empty.emptyRoom.seconds).upper95PerHour ?? Infinity) <= 1];
}

/** Issue 21's goals on the full test split, where the recorded figures have them. */
function issue21Goals(full: RecordedEvaluation, empty: RecordedEmptyRoom | null, hours: RecordedEmptyHours | null): string {
  const d = full.floorErrorM;
  if (!d) return '';
  const row = (goal: string, value: string, met: boolean | null) => `| ${goal} | ${value} | ${met === null ? '—' : met ? 'yes' : '**no**'} |`;
  const two = d['2']?.mean ?? null, three = d['3']?.mean ?? null;
  return `## Goals of issue 21 (full test split)

| goal | value | met |
|---|---|---|
${row('one person floor error mean ≤ 0.40 m', f2(d['1']?.mean), (d['1']?.mean ?? Infinity) <= 0.4)}
${row('one person floor error median ≤ 0.30 m', f2(d['1']?.median), (d['1']?.median ?? Infinity) <= 0.3)}
${row('two / three people mean floor error ≤ 0.60 m', `${f2(two)} / ${f2(three)}`, (two ?? Infinity) <= 0.6 && (three ?? Infinity) <= 0.6)}
${row('person count exact ≥ 0.85 (here: every estimate, from the room\'s first; "after 5 s of track" is `wiflow eval-e2e`\'s)', f3(full.model.all?.countAccuracy), (full.model.all?.countAccuracy ?? 0) >= 0.85)}
${row('phantom people in an empty room ≤ 1 per simulated hour', ...phantomRow(empty, hours))}

Floor error over matched people (metres): ${Object.entries(d).map(([k, v]) => `${k === 'all' ? 'all' : `${k} true`}: mean ${f2(v.mean)}, median ${f2(v.median)}, p90 ${f2(v.p90)}`).join('; ')}.

`;
}

const f0 = (v: number | null | undefined) => (v === null || v === undefined ? '—' : v.toFixed(0));
const f1 = (v: number | null | undefined) => (v === null || v === undefined ? '—' : v.toFixed(1));
const f2 = (v: number | null | undefined) => (v === null || v === undefined ? '—' : v.toFixed(2));
const f3 = (v: number | null | undefined) => (v === null || v === undefined ? '—' : v.toFixed(3));

/**
 * The locator's model card, generated from `locator.json`, the recorded evaluations
 * (`eval-test.json`, `eval-test-small.json`) and the hand-written `FINDINGS.md` beside them;
 * `comparison` is another model's recorded evaluation on the same test rooms (the pose
 * network's), shown side by side.
 */
export function locatorCard(directory: string, comparison?: RecordedEvaluation): string {
  const model = loadLocatorModel(directory);
  const spec = model.spec;
  const read = (file: string) => JSON.parse(readFileSync(path.join(directory, file), 'utf8')) as RecordedEvaluation;
  const full = read('eval-test.json'), small = read('eval-test-small.json');
  const empty = existsSync(path.join(directory, 'eval-test-empty-room.json')) ? (JSON.parse(readFileSync(path.join(directory, 'eval-test-empty-room.json'), 'utf8')) as RecordedEmptyRoom) : null;
  const hours = existsSync(path.join(directory, 'eval-e2e-test-empty-as-drawn.json')) ? (JSON.parse(readFileSync(path.join(directory, 'eval-e2e-test-empty-as-drawn.json'), 'utf8')) as RecordedEmptyHours) : null;
  if (full.modelHash !== model.hash || small.modelHash !== model.hash || (empty && empty.modelHash !== model.hash) || (hours && hours.hash !== model.hash)) throw new Error(`the recorded evaluations in ${directory} are not of this locator.json (hash ${model.hash.slice(0, 12)})`);
  const t = spec.training as Record<string, unknown>;
  const parameters = spec.countHead.layers.reduce((s, l) => s + l.weights.length * l.bias.length + l.bias.length, 0);
  const findings = existsSync(path.join(directory, FINDINGS_FILE)) ? `${readFileSync(path.join(directory, FINDINGS_FILE), 'utf8').trim()}\n\n` : '';
  const side = comparison
    ? `## Side by side with ${comparison.modelId} on the same test rooms

Both on the ${full.rooms} test rooms of the same plan (${comparison.modelId}: one sample per window set of the
signal chain, ${comparison.samples} samples; this locator: one per estimate, ${full.samples} samples, at nearly the same instants).

| true people | ${comparison.modelId} MPJPE mm | this locator MPJPE mm | ${comparison.modelId} floor m | this locator floor m | ${comparison.modelId} count | this locator count | room-centre mean pose MPJPE mm (locator's samples) |
|---|---|---|---|---|---|---|---|
${Object.keys(full.model).filter((k) => k !== '0').map((k) => `| ${k} | ${f0(comparison.model[k]?.mpjpeMm)} | ${f0(full.model[k].mpjpeMm)} | ${f2(comparison.model[k]?.floorErrorM)} | ${f2(full.model[k].floorErrorM)} | ${f3(comparison.model[k]?.countAccuracy)} | ${f3(full.model[k].countAccuracy)} | ${f0(full.baselines.meanPoseAtRoomCentre[k]?.mpjpeMm)} |`).join('\n')}

`
    : '';
  return `# Model card: ${spec.modelId} ${spec.version} (empty-room locator, node \`pose.locate\`)

Generated by \`wiflow locate card\` from \`locator.json\` and the evaluations recorded beside it;
the figures are reproduced by \`wiflow locate eval\` (CI checks the \`--small\` ones).

- **Model file**: \`locator.json\`, SHA-256 \`${model.hash}\`
- **What is learned**: the count head, a ${[spec.countHead.layers[0].weights.length, ...spec.countHead.layers.map((l) => l.bias.length)].join(' → ')} dense network (${parameters} parameters, TF.js, trained on ${String(t.samples)} estimates from ${String(t.rooms)} training rooms, seed ${String(t.seed)}); and the training people's mean pose.
- **What is not learned**: where people are. The floor position comes from coherent back-projection of the change against an empty-room reference (physics and the room's known geometry, no parameters fitted to rooms).${spec.tracker ? `\n- **Tracker** (inside the estimator): constant-velocity tracks; a person is born after ${spec.tracker.confirmHits} estimates with evidence (a peak whose count-head presence is ≥ ${spec.tracker.birthPresence ?? spec.tracker.evidencePresence}${spec.tracker.birthAboveNoise === undefined ? '' : ` and whose change energy exceeds the room's own empty-room noise energy by a log ratio ≥ ${spec.tracker.birthAboveNoise}`}) within ${spec.tracker.confirmWindow}${spec.tracker.nearTrackM > 0 ? ` (${spec.tracker.nearTrackHits} in a row within ${spec.tracker.nearTrackM} m of a person)` : ''}, is kept while its peak's presence is ≥ ${spec.tracker.evidencePresence}, and dies after ${spec.tracker.deathMisses} estimates in a row without; the confirmed tracks are the people and the count. Settings chosen on validation rooms.` : ''}
- **Input**: raw CSI frames of every link (not the signal chain's windows), one empty-room reference per link (\`wiflow locate reference\`), the environment with each radio's antenna array (\`txArray\`, \`rxArray\`).
- **Imaging**: floor grid ${spec.imaging.gridStepM} m at height ${spec.imaging.heightsM.join(', ')} m (${spec.imaging.scatterer === 'body' ? 'body forward model' : 'point scatterer'}), ${spec.imaging.packets} packets per link per estimate${spec.imaging.minPacketIntervalS ? ` (packets at least ${spec.imaging.minPacketIntervalS} s apart; faster streams are thinned before alignment)` : ''}, an estimate every ${spec.hopPackets} packets, up to ${spec.imaging.maxPersons} people at least ${spec.imaging.separationM} m apart; presence threshold ${spec.presenceThreshold}.

## Data

Simulated only (@wiflow/plugin-sim). The rooms and their train / validation / test split are the pose
network's recipe (\`${JSON.stringify(t.dataset)}\`), so the test rooms are the same unseen rooms. Each room's
reference is ${String(t.referenceSeconds)} s of the same room with nobody in it (same radios, hardware draws and noise
process), as an installer would record. The count head was fitted on the first ${String(t.rooms)} training rooms.
Locator choices are made on the validation rooms (\`--split val\`) and checked on a second
validation split of fresh rooms (\`--split val2\`: as many rooms as test, drawn by the same recipe with the
seed \`<seed>:val2\`, none of them in train, validation or test) before the choice goes to the test rooms.

## Test rooms (unseen), full split

${full.rooms} rooms, ${full.samples} estimates.

${evaluationTable(full)}

## Goals of issue 11 (full test split)

| goal | value | met |
|---|---|---|
${checkGoals(full).map((g) => `| ${g.goal} | ${g.value} | ${g.met ? 'yes' : '**no**'} |`).join('\n')}

${issue21Goals(full, empty, hours)}${side}## Small test subset (what CI runs: \`wiflow locate eval --small\`)

${small.rooms} rooms, ${small.samples} estimates.

${evaluationTable(small)}

${findings}## Known limits

- Simulated rooms only. A real room needs its empty-room reference recorded with the same radios, and
  again whenever furniture or radios move; the simulator's reference shares the session's hardware draws exactly.
- The skeleton is the training mean pose placed at each position: posture (standing, sitting, lying, a fall)
  is not estimated, so fall detection must not rely on this node's keypoints.
- Timing offsets must be zero-mean across the reference's packets (true of the simulator's model).
- At most ${spec.imaging.maxPersons} people; people closer than ${spec.imaging.separationM} m are seen as one.
`;
}

/** Write MODEL_CARD.md into the locator directory; returns its path. */
export function writeLocatorCard(directory: string, comparison?: RecordedEvaluation): string {
  const file = path.join(directory, 'MODEL_CARD.md');
  writeFileSync(file, locatorCard(directory, comparison));
  return file;
}

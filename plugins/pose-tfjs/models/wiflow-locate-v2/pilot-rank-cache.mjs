// Cache for pilot-rank.mjs (issue 21): the ghosts caches' untracked estimates (pilot-ghosts-rooms.mjs)
// plus, per estimate and link, the eigenvalues of the antenna-pair covariance of the raw change the
// estimate imaged (`antennaSpectrum`, noise units) and its columns (subcarriers × packets). The
// change is read from a second RoomImager fed the same frames, so it is the locator's own:
// aligned (static chain gain held over 30 s), reference subtracted, calibrated. VALIDATION rooms only.
// Run from the repository root after a build:
//   FRESH=<seed> node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-rank-cache.mjs <out.json> <rooms>
//   CLOSE=1 FRESH=<seed> node plugins/pose-tfjs/models/wiflow-locate-v2/pilot-rank-cache.mjs <out.json> <rooms>
// SECONDS=<s> shortens each room's session (default: the recipe's; side-by-side rooms 20 s).
import { writePilotCache } from './pilot-cache-file.mjs';
import { validationSessions } from './pilot-sessions.mjs';
import { sideBySide, untrackedEstimates, untrackedLocatorModel } from './pilot-ghosts-rooms.mjs';
import { RoomImager, antennaSpectrum, DatasetRecipeSchema, readModelSpec, SHIPPED_MODEL_DIR } from '@wiflow/plugin-pose-tfjs';

const [out, roomsArg] = process.argv.slice(2);
if (!out) throw new Error('usage: pilot-rank-cache.mjs <out.json> <rooms>');
const { model, cleanRadiusM, untracked } = untrackedLocatorModel();
const recipe = DatasetRecipeSchema.parse(readModelSpec(SHIPPED_MODEL_DIR).training.dataset ?? {});
const sessions = validationSessions(Number(roomsArg ?? 10));
const close = process.env.CLOSE === '1';
const seconds = Number(process.env.SECONDS ?? (close ? 20 : recipe.secondsPerSession));

/** A second imager on the same frames: its held change is the estimate's. */
const rankOf = (environment, reference) => {
  const imager = new RoomImager(environment, reference, untracked.spec.imaging);
  return {
    push: (frame) => imager.push(frame),
    read: () => {
      const changes = imager.heldChanges();
      return { rank: changes.map((c) => antennaSpectrum(c).map((v) => Number(v.toPrecision(4)))), columns: changes.map((c) => c.subcarriers * c.packets.length) };
    },
  };
};
const runs = [];
const started = process.cpuUsage();
for (const [i, s] of sessions.entries()) {
  process.stderr.write(`room ${i + 1}/${sessions.length} (${((process.cpuUsage(started).user + process.cpuUsage(started).system) / 1e6).toFixed(0)} CPU-s)\n`);
  const room = { width: s.scenario.room?.width, depth: s.scenario.room?.depth };
  const scenario = close ? sideBySide(s.scenario, i) : s.scenario;
  runs.push({ kind: 'room', id: close ? `${s.sessionId}~side-by-side` : s.sessionId, room, estimates: untrackedEstimates(untracked, scenario, seconds, rankOf) });
}
writePilotCache(out, { source: { ...(process.env.FRESH ? { seed: process.env.FRESH, close } : { seed: recipe.seed, split: 'val' }), cleanRadiusM, seconds }, model: model.spec.modelId, hash: model.hash, tracker: model.spec.tracker, maxPersons: model.spec.imaging.maxPersons, presenceThreshold: model.spec.presenceThreshold, runs });

// The validation sessions the locator pilots image (pilot-births-cache.mjs, pilot-ghosts-cache.mjs):
// the shipped recipe's `val` rooms, or with FRESH=<seed> fresh validation rooms (births-protocol.md):
// planDataset with that seed, every room in `val`, the recipe's ranges (FAINT=1: narrowed to their
// faint edge; PEOPLE_SECONDS=<s>: the `val` rooms, or with FRESH the fresh rooms, planned with sessions of <s> s). A fresh room whose signature matches any room of the shipped plan (train, val or
// test) is an error.
import * as sim from '@wiflow/plugin-sim';
import { DatasetRecipeSchema, readModelSpec, SHIPPED_MODEL_DIR } from '@wiflow/plugin-pose-tfjs';

/** The faint edge of the recipe's ranges (births-protocol.md): people far from links, small, weakly reflecting, at low SNR. */
export const FAINT = { roomWidth: [6, 8], roomDepth: [5, 7], personHeight: [1.5, 1.6], personGirth: [0.8, 0.9], bodyReflectivity: [0.45, 0.52], snrDb: [15, 22], people: [1, 2] };

/** Up to `rooms` validation sessions, as FRESH / FAINT in the environment ask. */
export function validationSessions(rooms, env = process.env) {
  const recipe = DatasetRecipeSchema.parse(readModelSpec(SHIPPED_MODEL_DIR).training.dataset ?? {});
  if (env.PEOPLE_SECONDS && !env.FRESH) {
    // PEOPLE_SECONDS=<s>: the same seed's `val` rooms planned with longer sessions (their people's scripts fill <s> s; pilot-breathing.mjs).
    const long = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: Number(env.PEOPLE_SECONDS), sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
    return long.sessions.filter((s) => s.split === 'val').slice(0, rooms);
  }
  const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges });
  if (!env.FRESH) return plan.sessions.filter((s) => s.split === 'val').slice(0, rooms);
  const fresh = sim.planDataset({ rooms, secondsPerSession: Number(env.PEOPLE_SECONDS ?? recipe.secondsPerSession), sessionsPerRoom: 1, seed: env.FRESH, split: { train: 0, val: 1, test: 0 }, ranges: { ...recipe.ranges, ...(env.FAINT === '1' ? FAINT : {}) } });
  const shipped = new Set(plan.sessions.map((s) => s.roomSignature));
  const clash = fresh.sessions.find((s) => shipped.has(s.roomSignature));
  if (clash) throw new Error(`fresh room ${clash.roomId} is a room of the shipped plan`);
  return fresh.sessions.filter((s) => s.split === 'val');
}

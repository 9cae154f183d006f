// The demo as `npm start` runs it (built CLI, examples/config/demo.json): does it show the two
// people of the simulated home where they are? /api/v1/pose/latest is sampled for a minute of
// frames and each frame is scored against the simulator's own truth for the scenario. Also: the
// people keep their track ids (the demo once reached track #26 in five minutes).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LOCATOR_JSON, SHIPPED_LOCATOR_DIR } from '@wiflow/plugin-pose-tfjs';
import { assignGated } from '@wiflow/plugin-tracker';
import { loadScenario, Simulator } from '@wiflow/plugin-sim';
import { describe, expect, it } from 'vitest';
import { useDemoServer } from './support/demo-server.js';
import { ROOT } from './support/server.js';

const PASSWORD = 'demo-accuracy-password-42';
const SCENARIO = path.join(ROOT, 'examples/scenarios/home-monitored.yaml');
/** Frame time read, after the first frame. */
const READ_SECONDS = 60;
/** Frames of the first seconds are left out: the tracker confirms people after a few frames (the eval-e2e rule). */
const WARM_UP_SECONDS = 5;
/**
 * Thresholds: the goals for two or three people in unseen rooms (docs/model.md):
 * count exact in at least 85 % of frames, mean floor error of the people shown at most 0.60 m.
 */
const MIN_COUNT_EXACT = 0.85;
const MAX_MEAN_FLOOR_ERROR_M = 0.6;
/** Distinct track ids shown in the minute: the two people, each lost and found under a new id at most once. */
const MAX_TRACK_IDS = 4;

interface ApiPerson { position: { x: number; y: number }; track_id?: number | null; tracking_info?: { track_id: string | null } }
interface ApiFrame { timestamp: string; frame_id: number; persons: ApiPerson[]; metadata: { model_id: string; model_hash: string; provenance: string } }

/**
 * Truth of the scenario per simulated tick (the simulator is deterministic: the same script
 * gives the same positions). Frames of the running demo are stamped with the wall clock of the
 * pipeline's start plus simulated time, so a frame's simulated time is its timestamp minus the
 * start; the start is the first frame's timestamp minus the packets the estimator needs
 * before its first estimate (imaging.packets of the shipped locator at the scenario's rate).
 */
function truthTimeline(seconds: number): { rateHz: number; positions: { x: number; y: number }[][] } {
  const scenario = loadScenario(SCENARIO);
  const positions: { x: number; y: number }[][] = [];
  for (const tick of new Simulator(scenario, { impairments: 'off' }).run(seconds)) positions.push(tick.truth.persons.map((p) => p.position));
  return { rateHz: scenario.channel.rateHz, positions };
}

/**
 * A goal test: it holds the thresholds, which the estimator does not meet yet (issue 21 stays
 * open; measured figures in docs/model.md). It runs with WIFLOW_GOAL_TESTS=1 and is skipped, saying so, otherwise.
 */
const GOAL_TESTS = process.env.WIFLOW_GOAL_TESTS === '1';
if (!GOAL_TESTS) console.log('demo-accuracy: skipped (goal test of issue 21, not met yet: see docs/model.md); run with WIFLOW_GOAL_TESTS=1');

describe.skipIf(!GOAL_TESTS)('npm start: the demo shows its two people at the right places', () => {
  const demo = useDemoServer(PASSWORD);

  it(`count and floor error over ${READ_SECONDS} s of /api/v1/pose/latest against the simulator's truth`, { timeout: 300_000 }, async () => {
    const frames = new Map<number, ApiFrame>();
    // Sample the latest frame four times a second (the locator makes about four a second at the
    // demo's 20 Hz; the pose_read limit allows 1,000 requests an hour) until a minute of frame time is covered.
    await new Promise<void>((resolve, reject) => {
      let busy = false;
      const sampler = setInterval(() => {
        if (busy) return;
        busy = true;
        void (async () => {
          const response = await fetch(`${demo.server.url}/api/v1/pose/latest?environment_id=home`, { headers: demo.auth });
          if (response.status === 200) {
            const body = (await response.json()) as { data?: ApiFrame } & ApiFrame;
            const frame = body.data ?? body;
            frames.set(frame.frame_id, frame);
            const times = [...frames.values()].map((f) => Date.parse(f.timestamp));
            if (Math.max(...times) - Math.min(...times) >= READ_SECONDS * 1000) {
              clearInterval(sampler);
              resolve();
            }
          } else if (response.status !== 404) throw new Error(`GET /pose/latest: ${response.status} ${await response.text()}`);
        })()
          .catch((error: unknown) => {
            clearInterval(sampler);
            reject(error as Error);
          })
          .finally(() => (busy = false));
      }, 250);
    });

    const seen = [...frames.values()].sort((a, b) => a.frame_id - b.frame_id);
    for (const f of seen) {
      // Every frame says which estimator made it, with its hash, and that it is simulated.
      expect(f.metadata.model_id).toMatch(/^wiflow-locate-/);
      expect(f.metadata.model_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(f.metadata.provenance).toBe('simulated');
    }
    // The first frame read anchors the clock when it is the estimator's first (frame_id 1); the history holds it otherwise.
    let first = seen[0];
    if (first.frame_id !== 1) {
      const history = (await (await fetch(`${demo.server.url}/api/v1/pose/history?environment_id=home&end_time=${encodeURIComponent(first.timestamp)}&limit=1000`, { headers: demo.auth })).json()) as { poses?: ApiFrame[]; data?: { poses: ApiFrame[] } };
      const stored = history.poses ?? history.data?.poses ?? [];
      first = stored.find((f) => f.frame_id === 1) ?? first;
    }
    expect(first.frame_id, 'the estimator\'s first frame is needed to anchor the simulated clock').toBe(1);
    // The shipped locator's own setting (read, not assumed): packets per link it images before its first estimate.
    const locator = JSON.parse(readFileSync(path.join(SHIPPED_LOCATOR_DIR, LOCATOR_JSON), 'utf8')) as { imaging?: { packets?: number } };
    expect(locator.imaging?.packets, 'the shipped locator names the packets it images (imaging.packets)').toBeGreaterThan(0);
    const truth = truthTimeline(READ_SECONDS + 20);
    const start = Date.parse(first.timestamp) - ((locator.imaging!.packets! - 1) * 1000) / truth.rateHz;

    let scored = 0;
    let exact = 0;
    const errors: number[] = [];
    for (const f of seen) {
      const t = (Date.parse(f.timestamp) - start) / 1000;
      if (t < WARM_UP_SECONDS) continue;
      const people = truth.positions[Math.round(t * truth.rateHz)];
      if (!people) continue;
      scored++;
      if (f.persons.length === people.length) exact++;
      const costs = people.map((p) => f.persons.map((q) => Math.hypot(p.x - q.position.x, p.y - q.position.y)));
      for (const [r, c] of assignGated(costs)) errors.push(costs[r][c]);
    }
    const countExact = exact / scored;
    const meanError = errors.length ? errors.reduce((a, b) => a + b, 0) / errors.length : Infinity;
    console.log(`demo accuracy: ${scored} frames scored, count exact ${(countExact * 100).toFixed(1)} %, mean floor error ${meanError.toFixed(2)} m over ${errors.length} matched people, ${seen.length} frames read`);
    const trackIds = new Set(seen.flatMap((f) => f.persons.map((p) => p.tracking_info?.track_id ?? p.track_id ?? null)).filter((id) => id !== null));
    console.log(`demo tracks: ${trackIds.size} distinct track ids shown in ${READ_SECONDS} s: ${[...trackIds].join(', ')}`);
    expect(scored).toBeGreaterThan(30);
    expect(countExact, `count exact in ${(countExact * 100).toFixed(1)} % of frames`).toBeGreaterThanOrEqual(MIN_COUNT_EXACT);
    expect(meanError, `mean floor error ${meanError.toFixed(2)} m`).toBeLessThanOrEqual(MAX_MEAN_FLOOR_ERROR_M);
    // Two people who stay in the room all minute: at most one id lost and found again each.
    expect(trackIds.size, `track ids ${[...trackIds].join(', ')}`).toBeLessThanOrEqual(MAX_TRACK_IDS);
  });
});

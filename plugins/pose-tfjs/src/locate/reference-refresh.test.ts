import * as sim from '@wiflow/plugin-sim';
import { describe, expect, it } from 'vitest';
import { ReferenceRefresh, ReferenceStaleness, simulateReference, type EmptinessJudge, type EmptyRoomReference, type RefreshSettings } from '../index.js';

// The hall's one 3×3 link at 20 Hz as a living room at 25 dB SNR, a day of slow static drift after its reference.
const room = {
  ...sim.hallScenario(),
  name: 'living-room',
  environmentId: 'living-room',
  seed: 4,
  impairments: { snrDb: 25, timingOffsetNs: 40, agcJitterDb: 0.5, packetLoss: 0.01, timingJitterUs: 200 },
  clutter: [{ label: 'sofa', position: [1.5, 3.2, 0.4], rcs: 1.5 }],
  drift: { referenceSeed: 9, staticDrift: { gainDb: 0.4, phaseRad: 0.25, periodS: 3600, elapsedS: 5400 } },
};

/** A person lying still on the floor from the start (no fidgets): the one who must never become part of the room. */
const lyingStill = { id: 1, height: 1.7, girth: 1, start: { x: 2.5, y: 2.0, yawDeg: 0 }, script: [{ action: 'lie', duration: 600 }] };
/** A person walking back and forth the whole time. */
const walking = { id: 1, height: 1.7, girth: 1, start: { x: 1.5, y: 1.5, yawDeg: 0 }, loop: true, script: [{ action: 'walk', path: [[3.8, 2.6]], speed: 0.9 }, { action: 'walk', path: [[1.5, 1.5]], speed: 0.9 }] };

const SETTINGS: Partial<RefreshSettings> = { enabled: true, emptySeconds: 15 };

/**
 * Run the room for `seconds` with the detector and the refresh as `pose.locate` wires them; each
 * judge's word comes once a second from `says` (what a locator or sense.room would say). Returns
 * the refresh, the references it made and the detector's last state against the last reference.
 */
function run(scenario: Record<string, unknown>, seconds: number, judges: EmptinessJudge[], says: (judge: EmptinessJudge, t: number) => boolean, settings = SETTINGS) {
  const validated = sim.validateScenario(scenario);
  const reference = simulateReference(sim as never, validated as never, 10);
  const refresh = new ReferenceRefresh(reference, settings, judges);
  let staleness = new ReferenceStaleness(reference);
  const made: EmptyRoomReference[] = [];
  let start: number | null = null;
  for (const tick of new sim.Simulator(validated).run(seconds)) {
    start ??= tick.time;
    const use = (next: EmptyRoomReference | null) => {
      if (!next) return;
      made.push(next);
      staleness = new ReferenceStaleness(next);
    };
    // A judge speaks once a second, about the second that just ended: after the detector closed its own second, as sensing does.
    if ((tick.time - start) % 1000 === 0) for (const j of judges) use(refresh.judge(j, tick.time, says(j, (tick.time - start) / 1000)));
    for (const frame of tick.frames) {
      refresh.push(frame);
      const second = staleness.push(frame);
      use(second && refresh.second(second));
    }
  }
  return { reference, refresh, made, last: staleness.status()[0] };
}

describe('automatic empty-room reference refresh', () => {
  it('is off unless enabled: a drifted, empty, still room keeps its reference', () => {
    const { refresh, made } = run({ ...room }, 25, ['locator'], () => true, { emptySeconds: 15 });
    expect(made).toEqual([]);
    expect(refresh.state()).toMatchObject({ enabled: false, version: 1, refreshedAt: null });
  }, 60_000);

  it('re-learns a drifted link once the room was judged empty and still long enough, keeps the old version, and rolls back', () => {
    const { reference, refresh, made, last } = run({ ...room }, 40, ['locator'], () => true);
    expect(made.length).toBeGreaterThanOrEqual(1);
    const state = refresh.state();
    expect(state.version).toBe(1 + made.length);
    expect(state.refreshedAt).not.toBeNull();
    expect(state.reason).toMatch(/judged empty \(locator\) and the link still for 15 s/);
    expect(state.history.at(-1)).toMatchObject({ version: 1, at: null });
    // Against the refreshed reference the drifted room is fine again (it was stale: the detector test's DRIFT).
    expect(last.status === 'unchecked' || last.verdict === 'fine').toBe(true);
    let back: EmptyRoomReference | null = null;
    for (let i = 0; i < made.length; i++) back = refresh.rollback();
    expect(back).toBe(reference);
    expect(refresh.rollback()).toBeNull();
  }, 90_000);

  it('never absorbs a person lying still from the start while the locator reports them', () => {
    const { refresh, made } = run({ ...room, people: [lyingStill] }, 40, ['locator'], () => false);
    expect(made).toEqual([]);
    expect(refresh.state().version).toBe(1);
  }, 90_000);

  it('never absorbs a still person the locator lost while sensing still reports them (every judge must say empty)', () => {
    const { made } = run({ ...room, people: [lyingStill] }, 40, ['locator', 'sensing'], (j) => j === 'locator');
    expect(made).toEqual([]);
  }, 90_000);

  it('one "someone" from any judge starts every stretch again', () => {
    // Empty by both, except sensing saying "someone" at 10 s and 22 s: no 15 s stretch fits in 30 s.
    const { made } = run({ ...room }, 30, ['locator', 'sensing'], (j, t) => j === 'locator' || (t !== 10 && t !== 22));
    expect(made).toEqual([]);
  }, 90_000);

  it('counts no second while a required judge has never spoken, or the change is over the cap', () => {
    const reference = simulateReference(sim as never, sim.validateScenario({ ...room }) as never, 2);
    const link = `${reference.links[0].tx}->${reference.links[0].rx}`;
    const second = (t: number, change: number) => ({ link, time: t * 1000, still: true, changeNoiseFloors: change, chainAlignedChangeNoiseFloors: null });
    const mute = new ReferenceRefresh(reference, SETTINGS, ['locator', 'sensing']);
    mute.judge('locator', 0, true);
    for (let t = 2; t < 30; t++) expect(mute.second(second(t, 1))).toBeNull();
    expect(mute.state().links[0].stretchSeconds).toBe(0);
    const capped = new ReferenceRefresh(reference, { ...SETTINGS, maxChangeNoiseFloors: 50 }, ['locator']);
    capped.judge('locator', 0, true);
    for (let t = 2; t < 12; t++) capped.second(second(t, 1));
    expect(capped.state().links[0].stretchSeconds).toBe(10);
    // A judge the room was not told to weigh changes nothing.
    capped.judge('sensing', 11_500, false);
    expect(capped.state().links[0].stretchSeconds).toBe(10);
    // A body-sized static change (over the cap) ends the stretch.
    capped.second(second(12, 80));
    expect(capped.state().links[0].stretchSeconds).toBe(0);
  });

  it('never refreshes while someone walks, even if every judge wrongly said empty', () => {
    const { made } = run({ ...room, people: [walking] }, 40, ['locator'], () => true);
    expect(made).toEqual([]);
  }, 90_000);
});

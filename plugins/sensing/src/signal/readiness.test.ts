import { fileURLToPath } from 'node:url';
import { openCapture } from '@wiflow/plugin-csi';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SENSING_MODELS, LinkSensor, linkReadiness, RECENT_STATES, SensingConfigSchema, sensingConfigHash, type LinkSnapshot } from '../index.js';
import { syntheticLinkFrames, type SyntheticOptions } from '../testing/synthetic-link.js';

const config = SensingConfigSchema.parse({});
const sensor = () => new LinkSensor({ tx: 'ap', rx: 'esp' }, { environmentId: 'room', config, models: DEFAULT_SENSING_MODELS, configHash: sensingConfigHash(config, DEFAULT_SENSING_MODELS) });

function snapshotOf(options: SyntheticOptions, seconds = 30): LinkSnapshot {
  const s = sensor();
  for (const frame of syntheticLinkFrames([{ kind: 'still', seconds, bpm: 14 }], options)) s.push(frame);
  return s.snapshot();
}

const verdicts = (s: LinkSnapshot) => Object.fromEntries(linkReadiness(s).checks.map((c) => [c.capability, c.verdict]));

describe("a link's readiness for sensing (what the Installer page shows)", () => {
  it('reads the radio, the packet rate and the lost slots of the last 10 s from what the link received', () => {
    const s = snapshotOf({ rateHz: 20, loss: 0.15, seed: 4, nrx: 3, nsc: 30, format: 'intel5300' });
    expect(s).toMatchObject({ link: { tx: 'ap', rx: 'esp' }, format: 'intel5300', family: 'intel5300', transmitChains: 1, receiveChains: 3, subcarriers: 30, fallDetector: 'velocity-profile', provenance: 'simulated', otherKindFrames: 0 });
    expect(s.seconds).toBeGreaterThanOrEqual(29);
    // 20 packets/s with 15 % lost: about 17 arrive each second, and at 2 per 10-Hz slot few slots are empty.
    expect(s.packetsPerSecond!).toBeGreaterThan(15);
    expect(s.packetsPerSecond!).toBeLessThan(19);
    expect(s.motionModel).toBe('captures-rate');
    expect(s.lostFraction!).toBeLessThan(0.2);
    expect(s.state).not.toBeNull();
    // The last minute's states, a letter a second, ending with the newest second's.
    expect(s.recentStates).toMatch(/^[esm]+$/);
    expect(s.recentStates.length).toBe(Math.min(RECENT_STATES, s.lastSecond! + 1));
    expect(s.recentStates.at(-1)).toBe(s.state![0]);
    expect(verdicts(s)).toEqual({ movement: 'ok', still_person: 'ok', breathing: 'ok', falls: 'ok' });
  });

  it('says what a slow single-chain link (an ESP32 at 6 packets/s) limits, and what to change', () => {
    const s = snapshotOf({ rateHz: 6, loss: 0, seed: 2, nrx: 1, nsc: 52, format: 'esp32' });
    expect(s).toMatchObject({ family: 'int8', receiveChains: 1, fallDetector: 'burst' });
    expect(s.lostFraction!).toBeGreaterThan(0.3);
    expect(s.lostFraction!).toBeLessThanOrEqual(0.5);
    const { checks } = linkReadiness(s);
    // Under 74 packets/s an ESP32 reads movement with its slow links' model, against the link's own quiet floor.
    expect(s).toMatchObject({ motionModel: 'slow-link', motionFloor: { window: 300, quantile: 0.25 } });
    expect(s.motionFloor!.seconds).toBe(s.lastSecond! + 1);
    expect(verdicts(s)).toEqual({ movement: 'limited', still_person: 'limited', breathing: 'limited', falls: 'limited' });
    const movement = checks.find((c) => c.capability === 'movement')!;
    expect(movement.reason).toMatch(/^[56]\.\d packets\/s, \d+ % of the 10-Hz grid's slots empty: under the rate this radio's motion model was fitted at, so movement is read by its slow links' model against the link's own quiet level \(the 25th percentile of each input over its last 5 min, \d+ s held so far\); a link started while people move.*raise the sender's packet rate/);
    // At the captures' rate the ESP32 model reads against the floor's minimum: ok, and the reason says what it needs.
    const fast = linkReadiness({ ...s, packetsPerSecond: 100, lostFraction: 0, motionModel: 'captures-rate', motionFloor: { seconds: 40, window: 300, quantile: 0 } }).checks[0];
    expect(fast).toEqual({ capability: 'movement', verdict: 'ok', reason: "100 packets/s, 0 % of the 10-Hz grid's slots empty; movement is read against the link's own quiet level (the lowest of each input over its last 5 min, 40 s held so far): a link started while people move reads them once it has seen the room quiet" });
    // Models without a slow one for the family (the ESP32's before 2026-11-30): blind under 25 packets/s, missing movement up to 74.
    const blind = { ...s, motionModel: 'captures-rate' as const, motionFloor: null };
    expect(verdicts(blind)).toEqual({ movement: 'no', still_person: 'no', breathing: 'limited', falls: 'limited' });
    expect(linkReadiness(blind).checks.find((c) => c.capability === 'movement')!.reason).toMatch(/this radio's motion model was fitted at about 100 packets\/s and reads no movement at 25 packets\/s or less .*raise the sender's packet rate/);
    expect(verdicts({ ...blind, packetsPerSecond: 50, lostFraction: 0 }).movement).toBe('limited');
    // An even link between the two rates only needs a faster sender; a bursty one (the slow-link model refuses it) is told to send evenly.
    const reasonAt50 = (lostFraction: number) => linkReadiness({ ...blind, packetsPerSecond: 50, lostFraction }).checks[0].reason;
    expect(reasonAt50(0)).toBe("50 packets/s, 0 % of the 10-Hz grid's slots empty: under the rate this radio's motion model was fitted at (about 100 packets/s), it misses movement (F1 0.71 at half that rate on real captures, docs/sensing.md); raise the sender's packet rate (its ping or beacon interval) toward 100 /s");
    expect(reasonAt50(0.8)).toMatch(/^50 packets\/s, 80 % of the 10-Hz grid's slots empty: .*; the slow-link model, which reads even links at this rate, refuses packets this uneven \(more than 70 % of the slots empty\): send evenly and raise the sender's packet rate/);
    expect(verdicts({ ...blind, packetsPerSecond: 100, lostFraction: 0 }).movement).toBe('ok');
    expect(checks.find((c) => c.capability === 'breathing')!.reason).toMatch(/one receive chain/);
    expect(checks.find((c) => c.capability === 'falls')!.reason).toMatch(/^the burst detector: no fall model was fitted or checked on real captures of this radio, and [56]\.\d packets\/s/);
  });

  it('keeps the states of the last minute only, a letter a second', () => {
    const s = snapshotOf({ rateHz: 20, loss: 0, seed: 9 }, 90);
    expect(s.lastSecond!).toBeGreaterThanOrEqual(88);
    expect(s.recentStates).toHaveLength(RECENT_STATES);
  });

  it('says no below 2 packets/s, unknown before the link is known, and notes packets of another kind', () => {
    expect(verdicts(snapshotOf({ rateHz: 1.5, loss: 0, seed: 1, nrx: 3, nsc: 30, format: 'intel5300' }, 60))).toEqual({ movement: 'no', still_person: 'no', breathing: 'no', falls: 'no' });
    const fresh = sensor();
    const few = syntheticLinkFrames([{ kind: 'still', seconds: 1, bpm: 14 }], { rateHz: 20, loss: 0, seed: 1 }).slice(0, 12);
    for (const f of few) fresh.push(f);
    const early = linkReadiness(fresh.snapshot());
    expect(early.checks.every((c) => c.verdict === 'unknown' && c.reason === '12 packets so far: the link\'s kind is decided by its first 40')).toBe(true);
    const mixed = { ...snapshotOf({ rateHz: 20, loss: 0, seed: 4 }), frames: 1000, otherKindFrames: 80 };
    expect(linkReadiness(mixed).notes).toEqual(['8 % of the packets are of another kind (shape or PHY mode) and are passed over: set the sender to one kind (for an ESP32, one PHY mode and bandwidth)']);
  });

  it('judges a real ESP32-CSI-Tool capture by its own clock: its packets come in bursts 4 s apart, too few to sense', async () => {
    const s = sensor();
    const reader = await openCapture(fileURLToPath(new URL('../../../csi/test-fixtures/esp32/example_data.csv', import.meta.url)), { onError: 'stop' });
    for await (const frame of reader) s.push(frame);
    const snap = s.snapshot();
    expect(snap).toMatchObject({ format: 'esp32', family: 'int8', receiveChains: 1, subcarriers: 51, frames: 60, seconds: 12 });
    // 60 packets over 12.5 s, but the last 10 s hold 15 of them, and 9 of 10 grid slots are empty.
    expect(snap.packetsPerSecond).toBe(1.5);
    expect(snap.lostFraction!).toBeGreaterThan(0.9);
    expect(verdicts(snap)).toEqual({ movement: 'no', still_person: 'no', breathing: 'no', falls: 'no' });
    expect(linkReadiness(snap).checks[0].reason).toMatch(/^1\.5 packets\/s, 9\d % of the 10-Hz grid's slots empty: the sensing needs at least 2 packets\/s/);
  });
});

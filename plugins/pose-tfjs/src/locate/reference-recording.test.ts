import type { CsiFrame } from '@wiflow/core';
import * as sim from '@wiflow/plugin-sim';
import { describe, expect, it } from 'vitest';
import { EmptyRoomRecording, environmentFromScenario, EmptyRoomReferenceSchema } from '../index.js';

// The hall's radios and the tv-box receiver, furnished as a study, with an Intel 5300's impairments.
const room = {
  ...sim.hallScenario({ tvBox: true }),
  name: 'study',
  environmentId: 'study',
  seed: 7,
  impairments: { snrDb: 25, timingOffsetNs: 40, agcJitterDb: 0.5, packetLoss: 0.01, timingJitterUs: 200 },
  clutter: [{ label: 'desk', position: [1.5, 3.2, 0.6], rcs: 1.5 }],
};

/** Record `seconds` of a scenario as an installer would (frames straight from the radios). */
function record(scenario: Record<string, unknown>, seconds: number, edit?: (frame: CsiFrame) => void): EmptyRoomRecording {
  const validated = sim.validateScenario(scenario);
  const recording = new EmptyRoomRecording(environmentFromScenario(validated as never), 'test');
  for (const tick of new sim.Simulator(validated).run(seconds)) for (const frame of tick.frames) {
    edit?.(frame);
    recording.push(frame);
  }
  return recording;
}

describe('recording an empty room', () => {
  it('an empty room passes the quality check and becomes a reference of every link', () => {
    const { reference, report } = record(room, 12).finish();
    expect(report.passed).toBe(true);
    expect(report.links.map((l) => l.link)).toEqual(['router->laptop', 'router->tv-box']);
    for (const link of report.links) {
      expect(link.rateHz).toBeGreaterThan(18);
      expect(link.snrDb).toBeGreaterThan(15);
      expect(link.powerSpreadDb).toBeLessThan(1);
      expect(link.motionSeconds).toEqual([]);
    }
    expect(EmptyRoomReferenceSchema.parse(reference).links).toHaveLength(2);
    expect(reference.links[0].bandwidthHz).toBe(20e6);
  }, 60_000);

  it('someone still walking out refuses the recording, naming the links and the seconds it saw motion in', () => {
    const late = { id: 1, height: 1.7, girth: 1, start: { x: 1.5, y: 1.5, yawDeg: 0 }, script: [{ action: 'walk', path: [[3.0, 2.5]], speed: 0.8 }, { action: 'leave', path: [[5.0, 2.0]] }, { action: 'absent', duration: 60 }] };
    const recording = record({ ...room, people: [late] }, 14);
    const report = recording.report();
    expect(report.passed).toBe(false);
    const moving = report.links.find((l) => l.motionSeconds.length)!;
    expect(moving.motionSeconds[0]).toBe(0);
    expect(moving.problems.join()).toMatch(/motion in the room during seconds? 0/);
    expect(() => recording.finish()).toThrow(expect.objectContaining({ code: 'WIFLOW_POSE_REFERENCE_REFUSED', message: expect.stringMatching(/link router->(laptop|tv-box): .*motion/) }));
  }, 60_000);

  it('a receiver whose gain steps mid-recording, and too few packets, are refused with the reason', () => {
    let start: number | null = null;
    const stepped = record(room, 12, (frame) => {
      // The tv-box's AGC drops 6 dB after 6 s: its CSI comes out at half the amplitude.
      start ??= frame.time;
      if (frame.link.rx !== 'tv-box' || frame.time - start < 6000) return;
      for (let j = 0; j < frame.csi.re.length; j++) { frame.csi.re[j] *= 0.5; frame.csi.im[j] *= 0.5; }
    }).report();
    expect(stepped.links.find((l) => l.link === 'router->laptop')!.problems).toEqual([]);
    const tv = stepped.links.find((l) => l.link === 'router->tv-box')!;
    expect(tv.powerSpreadDb).toBeGreaterThan(5);
    expect(tv.problems.join()).toMatch(/AGC not stable/);
    const short = record(room, 3).report();
    expect(short.passed).toBe(false);
    expect(short.links[0].problems[0]).toMatch(/packets, at least 100 needed/);
  }, 60_000);
});

import { join } from 'node:path';
import type { CsiFrame, SensingFrame } from '@wiflow/core';
import { runNode } from '@wiflow/core/testing';
import { Simulator, loadScenario } from '@wiflow/plugin-sim';
import { describe, expect, it } from 'vitest';
import { senseLinkNode, senseRoomNode } from '../index.js';

// The demo home (examples/scenarios/home-monitored.yaml): three Intel 5300-like 3 × 3 links at 20 packets/s,
// Alice walking, sitting and falling forward or sideways, Bob walking and sitting. Shortened to 100 s.
const SCENARIO = join(import.meta.dirname, '../../../../examples/scenarios/home-monitored.yaml');
const SECONDS = 100;

interface DemoRun {
  room: SensingFrame[];
  start: number;
  /** Per second: someone's keypoints move faster than 0.2 m/s on average. */
  moving: boolean[];
  /** The scripted falls, seconds from the start. */
  falls: { start: number; end: number }[];
}

async function simulateDemo(): Promise<DemoRun> {
  const sim = new Simulator(loadScenario(SCENARIO));
  const frames: CsiFrame[] = [];
  const moving: boolean[] = [];
  const falls: { start: number; end: number }[] = [];
  const previous = new Map<number, number[][]>();
  let fallStart = 0;
  for (const tick of sim.run(SECONDS)) {
    const t = (tick.truth.time - sim.startTimeMs) / 1000;
    for (const p of tick.truth.persons) {
      const before = previous.get(p.id);
      if (before) {
        let sum = 0;
        for (let k = 0; k < p.keypoints3d.length; k++) sum += Math.hypot(...p.keypoints3d[k].map((v, i) => v - before[k][i]) as [number, number, number]);
        if ((sum / p.keypoints3d.length) * sim.rateHz >= 0.2) moving[Math.floor(t)] = true;
      }
      previous.set(p.id, p.keypoints3d);
    }
    for (const e of tick.truth.events) {
      if (e.type === 'fall_start') fallStart = (e.time - sim.startTimeMs) / 1000;
      if (e.type === 'fall_end') falls.push({ start: fallStart, end: (e.time - sim.startTimeMs) / 1000 });
    }
    frames.push(...tick.frames);
  }
  const link = await runNode(senseLinkNode, { config: { environmentId: 'home' }, inputs: { frames } });
  const room = await runNode(senseRoomNode, { inputs: { sensing: link.outputs.sensing as SensingFrame[] } });
  return { room: room.outputs.sensing as SensingFrame[], start: sim.startTimeMs, moving, falls };
}

describe('the demo home, simulated CSI through sense.link → sense.room', () => {
  it('reports movement when people move and stillness when nobody does', { timeout: 300_000 }, async () => {
    const demo = await simulateDemo();
    const second = (f: SensingFrame) => Math.floor((f.time - demo.start) / 1000) - 1;
    let movingSeen = 0;
    let movingTotal = 0;
    let stillWrong = 0;
    let stillTotal = 0;
    for (const f of demo.room) {
      const s = second(f);
      if (s < 10) continue;
      // Someone moved in the 2-s motion window, or nobody did in the window and the second before it.
      if (demo.moving[s] && demo.moving[s - 1]) {
        movingTotal++;
        if (f.state === 'moving') movingSeen++;
      } else if (!demo.moving[s] && !demo.moving[s - 1] && !demo.moving[s - 2]) {
        stillTotal++;
        if (f.state === 'moving') stillWrong++;
      }
    }
    expect(movingTotal).toBeGreaterThan(20);
    expect(stillTotal).toBeGreaterThan(5);
    expect(movingSeen / movingTotal).toBeGreaterThanOrEqual(0.9);
    expect(stillWrong / stillTotal).toBeLessThanOrEqual(0.15);
    // Falls are not asserted: on simulated CSI the fall model finds none of the three scripted falls here and
    // raises one at 63 s (docs/sensing.md, "Evaluation on simulated rooms"); the scenario has them all the same.
    expect(demo.falls.length).toBe(3);
  });
});

// sense.room feeding pose.locate's `room` port, as a solution builder wires it in the studio: with the
// automatic reference refresh on, the room's sensing becomes a second judge of "the room is empty", and
// a refresh then needs its word for every second; a single link's word is not the room's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildFlow, createTestRuntime } from '@wiflow/core/testing';
import type { Runtime } from '@wiflow/core';
import csiPlugin from '@wiflow/plugin-csi';
import posePlugin, { environmentFromScenario, simulateReference, writeReference } from '@wiflow/plugin-pose-tfjs';
import sensingPlugin from '@wiflow/plugin-sensing';
import simPlugin, * as sim from '@wiflow/plugin-sim';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const SECONDS = 24;

let dir: string;
let runtime: Runtime;

function scenario(people: unknown[]) {
  return { ...sim.hallScenario({ durationS: SECONDS }), people } as ReturnType<typeof sim.hallScenario>;
}

interface RefreshState {
  environment_id: string;
  version: number;
  judges: string[];
  reason: string;
  links: { link: string; stretchSeconds: number }[];
  history: unknown[];
}

interface Outcome {
  room: RefreshState;
  ignored: number;
  why: string;
}

/**
 * Runs sim → pose.locate for SECONDS with the refresh on, the room port fed by sense.room ('room') or
 * straight by sense.link ('link'); sense.link is told the room's id unless `linkRoom` says otherwise.
 */
async function run(people: unknown[], sensing: 'room' | 'link', linkRoom = 'hall'): Promise<Outcome> {
  const s = scenario(people);
  const environment = environmentFromScenario(sim.validateScenario(s) as never);
  const nodes: Record<string, [string, Record<string, unknown>]> = {
    sim: ['sim.source', { scenario: s, realtime: false, durationS: SECONDS }],
    locate: ['pose.locate', { environments: [environment], references: [path.join(dir, 'hall.json')], referenceRefresh: { enabled: true, emptySeconds: 10 } }],
    poses: ['test.collect', { output: 'poses' }],
  };
  const wires = ['sim.frames -> locate.frames', 'locate.poses -> poses.in'];
  nodes.link = ['sense.link', linkRoom === '' ? {} : { environmentId: linkRoom }];
  wires.push('sim.frames -> link.frames');
  if (sensing === 'room') {
    nodes.room = ['sense.room', {}];
    wires.push('link.sensing -> room.sensing', 'room.sensing -> locate.room');
  } else {
    wires.push('link.sensing -> locate.room');
  }
  const job = await runtime.runJob(buildFlow(nodes, wires), { timeoutMs: 120_000 });
  const done = await job.done;
  expect(done.error).toBeNull();
  const stats = job.counters().locate?.stats;
  const [room] = JSON.parse(String(stats?.referenceRefresh)) as RefreshState[];
  return { room, ignored: Number(stats?.roomFramesIgnored), why: String(stats?.roomFramesIgnoredWhy) };
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'wiflow-room-port-'));
  const s = sim.validateScenario(scenario([]));
  writeReference(path.join(dir, 'hall.json'), simulateReference(sim as never, s as never, 2));
  runtime = await createTestRuntime({ plugins: [simPlugin, csiPlugin, posePlugin, sensingPlugin], dataDir: dir });
  await runtime.start();
});
afterAll(async () => {
  await runtime.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("sense.room on pose.locate's room port", () => {
  it('makes sensing a judge of the refresh, and an empty, still room is refreshed with its word', async () => {
    const { room, ignored } = await run([], 'room');
    expect(room.judges).toEqual(['locator', 'sensing']);
    expect(ignored).toBe(0);
    expect(room.version).toBeGreaterThan(1);
    expect(room.reason).toMatch(/judged empty \(locator and sensing\)/);
  });

  it('refreshes nothing while a person walks in the room', async () => {
    const lap = [[3.5, 1.2], [3.5, 2.8], [1.5, 2.8], [1.5, 1.2]];
    const { room } = await run([{ id: 1, start: { x: 1.5, y: 1.2 }, script: [{ action: 'walk', path: lap, speed: 0.6 }, { action: 'walk', path: lap, speed: 0.6 }] }], 'room');
    expect(room.judges).toEqual(['locator', 'sensing']);
    expect(room.version).toBe(1);
    expect(room.history).toEqual([]);
  });

  it("says so when sense.link was not told the room's id, instead of judging with another room's word", async () => {
    // sense.link's environmentId left at its default ('default'): the frames are another room's.
    const { room, ignored, why } = await run([], 'room', '');
    expect(room.judges).toEqual(['locator']);
    expect(ignored).toBeGreaterThanOrEqual(SECONDS - 2);
    expect(why).toMatch(/room default is not one of this node's rooms \(hall\): set sense\.link's environmentId/);
  });

  it('takes no word from a single link', async () => {
    const { room, ignored, why } = await run([], 'link');
    expect(room.judges).toEqual(['locator']);
    expect(ignored).toBeGreaterThanOrEqual(SECONDS - 2);
    expect(why).toMatch(/link frames of hall \(only sense\.room's frames are a room's word\)/);
  });
});

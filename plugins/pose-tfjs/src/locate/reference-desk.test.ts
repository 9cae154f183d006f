import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as sim from '@wiflow/plugin-sim';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PROBE, environmentFromScenario, readReference, ReferenceDesk, saveRoomPoseModel, type EmptyRoomReference, type RoomBinding } from '../index.js';

const room = sim.hallScenario();
const walker = { id: 1, height: 1.7, girth: 1, start: { x: 1.5, y: 1.5, yawDeg: 0 }, loop: true, script: [{ action: 'walk', path: [[3.5, 1.2], [3.2, 3.0], [1.5, 1.5]], speed: 0.9 }] };
const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-desk-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A room as a running pose.locate node offers it; `used` collects what the desk puts to use. */
function binding(file: string | null) {
  const used: EmptyRoomReference[] = [];
  const offered: RoomBinding = { environment: environmentFromScenario(sim.validateScenario(room) as never), nodeId: 'locate', referenceSource: file ?? 'simulator', referenceFile: file, staleness: () => [], use: (r) => used.push(r) };
  return { offered, used };
}

/** Offer `seconds` of a scenario's frames to the desk, as the node does. */
function feed(desk: ReferenceDesk, scenario: Record<string, unknown>, seconds: number) {
  for (const tick of new sim.Simulator(sim.validateScenario(scenario)).run(seconds)) for (const frame of tick.frames) desk.offer('hall', frame);
}

describe('the reference desk', () => {
  it('records the frames offered, checks them, writes the flow\'s file and puts the reference to use', () => {
    const desk = new ReferenceDesk();
    const file = path.join(dir, 'hall.json');
    const { offered, used } = binding(file);
    desk.attach(offered);
    expect(desk.rooms()).toEqual([expect.objectContaining({ environmentId: 'hall', links: ['router->laptop'], referenceFile: file, recording: null })]);
    const started = desk.start('hall', 6);
    expect(() => desk.start('hall', 6)).toThrow(expect.objectContaining({ code: 'WIFLOW_POSE_REFERENCE_BUSY' }));
    const frames = [...new sim.Simulator(sim.validateScenario(room)).run(7)].flatMap((tick) => tick.frames);
    for (const frame of frames.slice(0, 60)) desk.offer('hall', frame);
    expect(desk.recording(started.id)).toMatchObject({ state: 'recording', progress: expect.closeTo(0.5, 1) });
    for (const frame of frames.slice(60)) desk.offer('hall', frame);
    const done = desk.recording(started.id)!;
    expect(done).toMatchObject({ state: 'stored', progress: 1, storedIn: file, message: `stored in ${file} and in use` });
    expect(used).toHaveLength(1);
    expect(readReference(file).links[0].packets).toBe(used[0].links[0].packets);
    expect(desk.rooms()[0].recording).toBeNull();
  });

  it('refuses a recording with someone walking: nothing written, nothing used, the reasons kept', () => {
    const desk = new ReferenceDesk();
    const file = path.join(dir, 'walking.json');
    const { offered, used } = binding(file);
    desk.attach(offered);
    const started = desk.start('hall', 6);
    feed(desk, { ...room, people: [walker] }, 7);
    const done = desk.recording(started.id)!;
    expect(done.state).toBe('refused');
    expect(done.message).toMatch(/link router->laptop: .*motion in the room/);
    expect(done.report!.passed).toBe(false);
    expect(existsSync(file)).toBe(false);
    expect(used).toEqual([]);
  });

  it('keeps a reference in memory only where the flow names no file, and says so; unknown rooms and a stopped pipeline say why', () => {
    const desk = new ReferenceDesk();
    const { offered, used } = binding(null);
    const detach = desk.attach(offered);
    expect(() => desk.start('kitchen')).toThrow(/environment kitchen: no running pose.locate node senses it \(running: hall\)/);
    const kept = desk.start('hall', 6);
    feed(desk, room, 7);
    expect(desk.recording(kept.id)).toMatchObject({ state: 'stored', storedIn: null, message: expect.stringMatching(/in use until the pipeline stops; not written to a file: the flow's reference of hall is simulator/) });
    expect(used).toHaveLength(1);
    const cut = desk.start('hall', 6);
    feed(desk, room, 2);
    detach();
    expect(desk.recording(cut.id)).toMatchObject({ state: 'failed', message: 'the pipeline stopped before the recording ended; nothing was stored' });
    expect(desk.rooms()).toEqual([]);
  });

  it('lists each room as calibrated or not from its room-model directory, read on each call', () => {
    const modelsDir = path.join(dir, 'room-pose');
    const desk = new ReferenceDesk(modelsDir);
    desk.attach(binding(null).offered);
    expect(desk.rooms()[0].calibration).toMatchObject({ calibrated: false, modelDir: path.join(modelsDir, 'hall'), command: expect.stringContaining(`--models ${modelsDir}`) });
    // `wiflow calibrate` writes from another process: the next call sees the model.
    const spec = { format: 'wiflow-room-pose/1' as const, modelId: 'wiflow-room-pose-v1', environmentId: 'hall', probe: DEFAULT_PROBE, layers: [2, 51], featureMean: [0, 0], featureStd: [1, 1], meanPose: Array.from({ length: 17 }, () => [0, 0, 1] as [number, number, number]), training: {} };
    const model = saveRoomPoseModel(path.join(modelsDir, 'hall'), spec, [{ w: new Float32Array(102), b: new Float32Array(51) }]);
    expect(desk.rooms()[0].calibration).toMatchObject({ calibrated: true, modelHash: model.hash });
    expect(new ReferenceDesk().rooms()).toEqual([]);
    const bare = new ReferenceDesk();
    bare.attach(binding(null).offered);
    expect(bare.rooms()[0].calibration).toMatchObject({ calibrated: false, command: null, message: 'not known: this desk has no room-model directory to look in' });
  });
});

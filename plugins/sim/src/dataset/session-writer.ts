import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Simulator, type SimulatorOptions } from '../engine/simulator.js';
import { openRecordingSink, type RecordingFormat } from '../recording/recording-sink.js';
import type { Scenario } from '../scenario/schema.js';

/** One session to write: everything a worker thread needs (plain data, so it crosses threads). */
export interface SessionJob {
  index: number;
  dir: string;
  split: string;
  sessionId: string;
  roomId: string;
  scenario: Scenario;
  secondsPerSession: number;
  impairments?: SimulatorOptions['impairments'];
  format: RecordingFormat;
}

/** What writing a session produced. */
export interface SessionResult {
  index: number;
  recording: string;
  scenario: string;
  frames: number;
  format: RecordingFormat;
}

/**
 * Simulate one session into `<dir>/<split>/<sessionId>.<format>` and its scenario file. A
 * session depends on nothing but its scenario (its own seed), so it gives the same bytes in any
 * thread and in any order; `onTicks` reports progress every 50 ticks.
 */
export async function writeSession(job: SessionJob, onTicks?: (ticks: number) => void): Promise<SessionResult> {
  const recording = path.join(job.split, `${job.sessionId}.${job.format}`);
  const simulator = new Simulator(job.scenario, { impairments: job.impairments });
  // `created` is the session's simulated start, not the wall clock, so a seed gives the same bytes on every run.
  const created = new Date(simulator.startTimeMs).toISOString();
  const sink = await openRecordingSink(path.join(job.dir, recording), { created, source: '@wiflow/plugin-sim', dataset: true, sessionId: job.sessionId, roomId: job.roomId, split: job.split, environmentId: job.scenario.environmentId }, job.format);
  let ticks = 0;
  try {
    for (const tick of simulator.run(job.secondsPerSession)) {
      for (const frame of tick.frames) await sink.write(frame);
      if (++ticks % 50 === 0) onTicks?.(50);
    }
  } finally {
    await sink.close();
  }
  onTicks?.(ticks % 50);
  const scenarioFile = path.join(job.split, `${job.sessionId}.scenario.json`);
  await writeFile(path.join(job.dir, scenarioFile), JSON.stringify(job.scenario, null, 2));
  return { index: job.index, recording, scenario: scenarioFile, frames: sink.frames, format: sink.format };
}

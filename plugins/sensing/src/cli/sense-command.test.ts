import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SensingFrame } from '@wiflow/core';
import { encodeRecording } from '@wiflow/plugin-csi';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerSenseCommand, senseCapture } from '../index.js';
import { syntheticLinkFrames } from '../testing/synthetic-link.js';
import { summarize } from './sense-command.js';

/** The public sample captures of @wiflow/plugin-csi (docs: plugins/csi/test-fixtures/README.md). */
const fixtures = join(dirname(fileURLToPath(import.meta.url)), '../../../csi/test-fixtures');

async function sense(args: string[]): Promise<string[]> {
  const lines: string[] = [];
  const program = new Command().exitOverride();
  registerSenseCommand(program, (line) => lines.push(line));
  await program.parseAsync(['node', 'wiflow', 'sense', ...args]);
  return lines;
}

describe('wiflow sense', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wiflow-sense-'));
  // A walk long enough to be an entry (4 person-sized moving seconds in 10; the first second locks the packet kind), then still.
  const frames = syntheticLinkFrames([{ kind: 'moving', seconds: 6 }, { kind: 'still', seconds: 34, bpm: 18 }], { rateHz: 20, loss: 0.05, seed: 4 });
  const good = join(dir, 'good.wfr');
  const whole = encodeRecording(frames, { name: 'synthetic' });
  writeFileSync(good, whole);
  const truncated = join(dir, 'truncated.wfr');
  writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length / 2) + 7));
  const short = join(dir, 'short.wfr');
  writeFileSync(short, encodeRecording(frames.filter((f) => f.timestamp < 16e6))); // the walk and 10 still seconds: too short for a rate

  it('prints one JSON line per second and a summary per file; a truncated file gives its byte offset and the others are still scored', async () => {
    process.exitCode = undefined;
    const lines = (await sense([truncated, good, short, '--json'])).map((l) => JSON.parse(l) as Record<string, unknown>);
    process.exitCode = undefined;
    const error = lines.find((l) => l.file === truncated && l.error) as { error: { code: string; message: string; offset: number } };
    expect(error.error.code).toBe('WIFLOW_CSI_TRUNCATED');
    expect(error.error.offset).toBeGreaterThan(0);
    expect(error.error.message).toContain(truncated);
    expect(error.error.message).toMatch(/byte offset \d+/);
    const seconds = lines.filter((l) => l.file === good && 't' in l);
    expect(seconds.length).toBe(40);
    expect(Object.keys(seconds[0]).sort()).toEqual(['activity', 'breathing_bpm', 'breathing_reason', 'fall', 'file', 'motion', 'presence', 'state', 't'].sort());
    expect(seconds.map((l) => l.t)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    const summary = lines.find((l) => l.file === good && l.summary) as { summary: { seconds: number; state_seconds: Record<string, number>; breathing_bpm: number | null } };
    expect(summary.summary.seconds).toBe(40);
    expect(summary.summary.state_seconds.moving).toBeGreaterThanOrEqual(3);
    expect(summary.summary.breathing_bpm).not.toBeNull();
    expect(Math.abs(summary.summary.breathing_bpm! - 18)).toBeLessThan(1);
    const shortSummary = lines.find((l) => l.file === short && l.summary) as { summary: { breathing_bpm: number | null; breathing_reason: string } };
    expect(shortSummary.summary.breathing_bpm).toBeNull();
    expect(shortSummary.summary.breathing_reason).toBe('too_short');
  });

  it('says why every null breathing rate is null, on empty seconds too', async () => {
    const empty = join(dir, 'empty.wfr');
    writeFileSync(empty, encodeRecording(syntheticLinkFrames([{ kind: 'empty', seconds: 40 }], { rateHz: 20, seed: 8 })));
    const lines = (await sense([good, empty, '--json'])).map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => 't' in l);
    for (const l of lines) if (l.breathing_bpm === null) expect(l.breathing_reason, `${String(l.file)} t=${String(l.t)}`).toEqual(expect.any(String));
    const emptySeconds = lines.filter((l) => l.file === empty);
    expect(emptySeconds.every((l) => l.state === 'empty' && l.presence === false)).toBe(true);
    // Before 20 still seconds the spectrum is not read; after, it finds no breath.
    expect(emptySeconds.filter((l) => (l.t as number) >= 2 && (l.t as number) < 19).every((l) => l.breathing_reason === 'too_short')).toBe(true);
    expect(emptySeconds.filter((l) => (l.t as number) >= 25).every((l) => l.breathing_reason === 'no_periodicity')).toBe(true);
  });

  it('names the room from --environment and refuses an environment file without an id', async () => {
    const environment = join(dir, 'environment.yaml');
    writeFileSync(environment, 'environmentId: kitchen\n');
    const lines = await sense([good, '--environment', environment]);
    expect(lines[0]).toMatch(/good\.wfr\s+\(room kitchen, \d+ frames, 40 s\)/);
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'name: [1, 2]\n');
    await expect(sense([good, '--environment', bad])).rejects.toMatchObject({ code: 'WIFLOW_SENSE_BAD_INPUT_FILE' });
  });

  it('says so when a capture holds no whole second, instead of an empty table', async () => {
    // The Intel 5300 sample capture: 29 packets within one second.
    const lines = await sense([join(fixtures, 'intel', 'log.all_csi.6.7.6.dat')]);
    expect(lines[0]).toMatch(/log\.all_csi\.6\.7\.6\.dat\s+\(room default, 29 frames, 0 s\)/);
    expect(lines[1]).toBe('  no whole second of CSI in 29 frames: nothing to sense (sensing reports per second; give a longer capture)');
  });

  it("raises no fall from a capture's first seconds, judged without the context a fall detector reads (fallFullContext, on)", async () => {
    // The ESP32-CSI-Tool sample: 12 s that read empty throughout. Judged without its 8 s before, a burst at 1 s was a fall.
    const sample = join(fixtures, 'esp32', 'example_data.csv');
    const lines = (await sense([sample, '--json'])).map((l) => JSON.parse(l) as { t?: number; state?: string; fall?: unknown; summary?: { falls: number[]; state_seconds: Record<string, number> } });
    const summary = lines.find((l) => l.summary)!.summary!;
    expect(summary.state_seconds.empty).toBe(12);
    expect(summary.falls).toEqual([]);
    expect(lines.filter((l) => l.t !== undefined && l.fall !== null)).toEqual([]);
    // The same capture with the option off: the start-up fall the option removes.
    const without = await senseCapture(sample, { config: { fallFullContext: false } });
    expect(without.room.flatMap((f) => f.falls).length).toBeGreaterThan(0);
  });

  it('prints a readable table without --json', async () => {
    const lines = await sense([good]);
    process.exitCode = undefined;
    expect(lines[0]).toContain('good.wfr');
    // What the link gives the sensing, over the whole capture, before the seconds.
    expect(lines[1]).toMatch(/^  link tx>rx: \S+, 1×3 chains, \d+ subcarriers; 1\d\.\d packets\/s, \d+ % of the 10-Hz grid's slots empty \(whole capture\)$/);
    expect(lines.slice(2, 6).map((l) => l.trim().split(/\s{2,}|\s(?=ok|limited|no|unknown)/)[0])).toEqual(['movement:', 'still person:', 'breathing:', 'falls:']);
    expect(lines[6]).toMatch(/t\s+state\s+motion\s+breathing\s+activity\s+fall/);
    expect(lines.at(-1)).toMatch(/summary: empty \d+ s, still \d+ s, moving \d+ s/);
  });

  it("tells an installer what a capture's link gives: the ESP32 sample's bursts leave most of the grid empty", async () => {
    const lines = await sense([join(fixtures, 'esp32', 'example_data.csv')]);
    expect(lines[1]).toMatch(/^  link D0:6E:DE:27:6B:63>\S+: esp32, 1×1 chains, 51 subcarriers; 5\.0 packets\/s, (8|9)\d % of the 10-Hz grid's slots empty \(whole capture\)$/);
    const verdicts = Object.fromEntries(lines.slice(2, 6).map((l) => /^    (\w+(?: \w+)?):\s+(ok|limited|no|unknown)\s/.exec(l)!.slice(1, 3)));
    expect(verdicts).toEqual({ movement: 'no', 'still person': 'no', breathing: 'no', falls: 'limited' });
    expect(lines[4]).toMatch(/too_many_gaps/);
    // Bursts 4 s apart are outside what the slow-link model was fitted on (evenly thinned links): the reason says so.
    expect(lines[2]).toMatch(/the packets come too unevenly for the slow-link model \(it reads links with at most 70 % of the slots empty\), and this radio's motion model was fitted at about 100 packets\/s: movement is not read reliably here; send evenly and raise/);
  });
});

describe('the per-file summary', () => {
  it('gives the true median breathing rate of the still seconds: the mean of the two middle rates for an even count', () => {
    const frame = (second: number, state: SensingFrame['state'], breathingBpm: number | null): SensingFrame => ({
      time: (second + 1) * 1000, second, scope: 'room', environmentId: 'r', link: null, presence: true, state, motion: 0,
      breathingBpm, breathingReason: breathingBpm === null ? 'moving' : null, breathingQuality: null, activity: null, falls: [], lostFraction: 0,
      estimatorId: 'wiflow-sense-v1', configHash: 'x', provenance: 'replay',
    });
    // Still seconds rated 12, 14, 16, 30 (a moving second's rate does not count): median (14 + 16) / 2.
    const room = [frame(0, 'still', 16), frame(1, 'still', 12), frame(2, 'moving', 40), frame(3, 'still', 30), frame(4, 'still', 14)];
    expect(summarize(room).breathing_bpm).toBe(15);
    expect(summarize(room.slice(0, 2)).breathing_bpm).toBe(14);
  });
});

import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureInfo, convertCapture, formatCaptureInfo, readCapture, runReplay } from '../index.js';

// Public sample captures (CSIKit, ESP32-CSI-Tool) kept in the package: test-fixtures/README.md.
const DATA = resolve(import.meta.dirname, '../../test-fixtures');
const file = (p: string) => resolve(DATA, p);
const tmp = mkdtempSync(join(tmpdir(), 'wiflow-csi-cli-'));
const BIN = resolve(import.meta.dirname, '../../../../core/dist/cli/bin.js');
const DIST = resolve(import.meta.dirname, '../../dist/index.js');

describe('csi info', () => {
  it('reports the facts of every shared capture', async () => {
    const intel = await captureInfo(file('intel/log.all_csi.6.7.6.dat'));
    expect(intel).toMatchObject({ format: 'intel5300', frames: 29, shapes: { '1x3': 10, '2x3': 9, '3x3': 10 }, subcarrierCounts: { 30: 29 }, subcarrierRange: [-28, 28], rateHz: null, error: null });
    expect(intel.notes.join()).toMatch(/do not advance/);
    // get_total_rss per chain: rssi_x − 44 − agc; the first record has 33, 37, 41 at AGC 38.
    expect(intel.rssi!.max).toBeGreaterThanOrEqual(41 - 44 - 38);

    const atheros = await captureInfo(file('atheros/example_bigEndian.dat'));
    expect(atheros).toMatchObject({ format: 'atheros', frames: 16, shapes: { '2x3': 16 }, centerFrequenciesHz: [2462e6], bandwidthsHz: [20e6], subcarrierRange: [-28, 28] });
    expect(atheros.rateHz).toBeCloseTo(15 / atheros.durationSeconds, 6);

    const esp = await captureInfo(file('esp32/example_data.csv'));
    expect(esp).toMatchObject({ format: 'esp32-csi-tool', frames: 60, subcarrierCounts: { 51: 60 }, centerFrequenciesHz: [2437e6], rssi: { min: -79, max: -77, count: 60 }, noiseDbm: { min: -97, max: -96 } });
    expect(esp.links).toEqual([{ tx: 'D0:6E:DE:27:6B:63', rx: 'example_data.csv', frames: 60 }]);
    expect(esp.durationSeconds).toBeCloseTo((15039322 - 2504852) / 1e6, 6);

    const nexmon = await captureInfo(file('nexmon/example_4366c0.pcap'));
    expect(nexmon).toMatchObject({ format: 'nexmon-pcap', frames: 293, bandwidthsHz: [80e6], centerFrequenciesHz: [5530e6], subcarrierCounts: { 242: 293 } });
    expect(nexmon.notes.join()).toMatch(/float-12-6 guessed from the content/);
    const withChip = await captureInfo(file('nexmon/example_4358.pcap'), { chip: 'bcm4358' });
    expect(withChip).toMatchObject({ frames: 4, centerFrequenciesHz: [5775e6], notes: [] });
    expect(withChip.links.length).toBe(4);

    const pico = await captureInfo(file('picoscenes/picoscenes_iwl5300_example.csi'));
    expect(pico).toMatchObject({ format: 'picoscenes', frames: 112, centerFrequenciesHz: [2437e6], subcarrierCounts: { 30: 112 } });
    const lines = formatCaptureInfo(pico);
    expect(lines[1]).toBe('format:       picoscenes');
    expect(lines.join('\n')).toMatch(/rssi: +min \d+, mean [\d.]+, max \d+/);
  });
});

describe('csi convert', () => {
  it('--to json writes one object per frame with csi {shape, re, im} [tx][rx][sc] and csi_scaled for the Intel 5300', async () => {
    const lines: string[] = [];
    const result = await convertCapture(file('intel/log.all_csi.6.7.6.dat'), { to: 'json' }, (l) => lines.push(l));
    expect(result.frames).toBe(29);
    const expected = JSON.parse(readFileSync(file('intel/log.all_csi.6.7.6.expected.json'), 'utf8')) as { frames: { csi: { re: number[]; im: number[] } }[] };
    const objects = lines.map((l) => JSON.parse(l) as { csi: { shape: number[]; re: number[]; im: number[] }; csi_scaled?: { shape: number[] }; ntx: number });
    expect(objects[0].csi.shape).toEqual([1, 3, 30]);
    expect(objects[15].csi.shape).toEqual([2, 3, 30]);
    expect(objects[0].csi_scaled!.shape).toEqual([1, 3, 30]);
    objects.forEach((o, i) => {
      expect(o.csi.re).toEqual(expected.frames[i].csi.re);
      expect(o.csi.im).toEqual(expected.frames[i].csi.im);
    });
  });

  it('--to json keeps every Nexmon bin in device order (matching csi_buff); --to wiflow round-trips', async () => {
    const out = join(tmp, 'nexmon.jsonl');
    await convertCapture(file('nexmon/example_4358.pcap'), { to: 'json', output: out, chip: 'bcm4358' });
    const objects = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { csi: { shape: number[]; re: number[] }; subcarriers: number[] });
    const expected = (JSON.parse(readFileSync(file('nexmon/example_4358.expected.json'), 'utf8')) as { csi_buff: { re: number[] } }).csi_buff;
    expect(objects.length).toBe(4);
    expect(objects[0].csi.shape).toEqual([1, 1, 256]);
    expect(objects[0].subcarriers.slice(126, 130)).toEqual([126, 127, -128, -127]);
    expect(objects.flatMap((o) => o.csi.re)).toEqual(expected.re);
    const wfr = join(tmp, 'esp.wfr');
    const result = await convertCapture(file('esp32/example_data.csv'), { to: 'wiflow', output: wfr });
    expect(result.frames).toBe(60);
    const back = await readCapture(wfr);
    const original = await readCapture(file('esp32/example_data.csv'));
    expect(back.map((f) => Array.from(f.csi.re))).toEqual(original.map((f) => Array.from(f.csi.re)));
  });
});

describe('unknown content', () => {
  it('csi info refuses a file that is no capture with a typed error', async () => {
    await expect(captureInfo(BIN)).rejects.toMatchObject({ code: 'WIFLOW_CSI_UNKNOWN_FORMAT', offset: 0 });
  });
});

describe('replay command', () => {
  it('prints frames as JSON lines, as fast as possible, looping up to a limit', async () => {
    const lines: string[] = [];
    const result = await runReplay(file('atheros/example_bigEndian.dat'), { speed: 0, loop: true, json: true, limit: 40 }, (l) => lines.push(l));
    expect(result.frames).toBe(40);
    const stamps = lines.map((l) => (JSON.parse(l) as { timestamp: number }).timestamp);
    for (let i = 1; i < stamps.length; i++) expect(stamps[i]).toBeGreaterThan(stamps[i - 1]);
  });
});

function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolvePromise) => {
    execFile(process.execPath, [BIN, ...args], { cwd: tmp, env: { ...process.env, WIFLOW_LOG_LEVEL: 'error' }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolvePromise({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe.skipIf(!existsSync(BIN) || !existsSync(DIST))('through the wiflow bin', () => {
  it('wiflow csi info, record --file and replay (each run loads every installed plugin, so only three)', async () => {
    const info = await run(['csi', 'info', file('esp32/example_data.csv')]);
    expect(info.code).toBe(0);
    expect(info.stdout).toMatch(/format: +esp32-csi-tool/);
    expect(info.stdout).toMatch(/frames: +60/);
    const out = join(tmp, 'recorded.wfr');
    const record = await run(['record', out, '--file', file('picoscenes/picoscenes_iwl5300_example.csi')]);
    expect(record.stdout).toMatch(/recorded 112 frames/);
    const replay = await run(['replay', out, '--speed', '0', '--json', '--limit', '5']);
    expect(replay.stdout.trim().split('\n').length).toBe(5);
  }, 120_000);
});

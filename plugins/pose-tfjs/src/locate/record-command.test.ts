// `wiflow locate record` (guided recording with its quality check) and
// `wiflow locate check` (a reference that does not fit says which link and field).
import { createServer } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hallScenario, openRecordingSink, Simulator, validateScenario } from '@wiflow/plugin-sim';
import { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readReference, registerPoseCommands } from '../index.js';

// The installer's hall with an Intel 5300's noise, timing, AGC and loss, and a bench by the far wall.
const hardware = { impairments: { snrDb: 25, timingOffsetNs: 40, agcJitterDb: 0.5, packetLoss: 0.01, timingJitterUs: 200 }, clutter: [{ label: 'bench', position: [1.5, 3.2, 0.4], rcs: 1.5 }] };
const room = { ...hallScenario(), ...hardware };
const walker = { id: 1, height: 1.7, girth: 1, start: { x: 1.5, y: 1.5, yawDeg: 0 }, loop: true, script: [{ action: 'walk', path: [[3.5, 1.2], [3.2, 3.0], [1.5, 1.5]], speed: 0.9 }] };

let dir: string;
const file = (name: string) => path.join(dir, name);

function cli(lines: string[] = []) {
  const p = new Command('wiflow').exitOverride().configureOutput({ writeErr: () => undefined });
  registerPoseCommands(p, { runtime: async () => ({ dataDir: dir }) as never, print: (l) => lines.push(l) });
  return (...args: string[]) => p.parseAsync(['node', 'wiflow', ...args]);
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'wiflow-record-'));
  writeFileSync(file('hall.json'), JSON.stringify(room));
  writeFileSync(file('hall-walking.json'), JSON.stringify({ ...room, people: [walker] }));
  writeFileSync(file('hall-2-antennas.json'), JSON.stringify({ ...room, radios: [room.radios[0], { ...room.radios[1], antennas: 2 }] }));
  // The same hall with its receiver named otherwise: a capture of the hall names none of its links.
  writeFileSync(file('hall-renamed.json'), JSON.stringify({ ...room, radios: [room.radios[0], { ...room.radios[1], id: 'desk' }] }));
  writeFileSync(file('hall-second-receiver.json'), JSON.stringify({ ...hallScenario({ tvBox: true }), ...hardware }));
  // A capture of the empty hall as the radios would write it (the simulator's wiflow recording).
  const sink = await openRecordingSink(file('empty-hall.wfr'), { scenario: 'hall' });
  for (const tick of new Simulator(validateScenario(room)).run(12)) for (const frame of tick.frames) await sink.write(frame);
  await sink.close();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('wiflow locate record', () => {
  it('tells the installer to leave, shows progress, passes the quality check of an empty room and writes the reference', async () => {
    const lines: string[] = [];
    await cli(lines)('locate', 'record', '--environment', file('hall.json'), '--source', file('empty-hall.wfr'), '--seconds', '10', '--out', file('ref.json'));
    expect(lines[0]).toMatch(/^Leave the room now .* recording 10 s of hall \(1 link\)/);
    expect(lines.filter((l) => /recording #+\.* \d+\.0\/10 s/.test(l))).toHaveLength(9);
    expect(lines.join('\n')).toMatch(/router->laptop: 200 packets, (19|20)\.\d packets\/s, .*noise floor \d+\.\d dB under the channel: ok\npassed\nwrote/);
    const reference = readReference(file('ref.json'));
    expect(reference.environmentId).toBe('hall');
    expect(reference.links[0]).toMatchObject({ tx: 'router', rx: 'laptop', ntx: 3, nrx: 3, bandwidthHz: 20e6 });
  }, 60_000);

  it('refuses a recording with someone walking, saying so per link, and writes nothing', async () => {
    // The walker starts from standing (the gait ramps up over 0.5 s), so second 0 may be quiet enough to pass.
    const lines: string[] = [];
    const run = cli(lines)('locate', 'record', '--environment', file('hall-walking.json'), '--source', 'sim', '--seconds', '8', '--out', file('walking.json'));
    await expect(run).rejects.toMatchObject({ code: 'WIFLOW_POSE_REFERENCE_REFUSED', message: expect.stringMatching(/link router->laptop: .*motion in the room during seconds (0, )?1, 2(, \d)+ of the recording/) });
    expect(lines.join('\n')).toMatch(/router->laptop: .*FAILED: .*motion.*\nrefused: nothing written/);
    expect(existsSync(file('walking.json'))).toBe(false);
  }, 60_000);

  it('a capture of other radios is refused naming its links and the environment\'s, not reported as receivers without packets', async () => {
    const run = cli()('locate', 'record', '--environment', file('hall-renamed.json'), '--source', file('empty-hall.wfr'), '--seconds', '5', '--out', file('renamed.json'));
    await expect(run).rejects.toMatchObject({ code: 'WIFLOW_POSE_CAPTURE_LINKS_UNKNOWN', message: expect.stringMatching(/empty-hall\.wfr: none of its links \(router->laptop\) is a link of environment hall \(router->desk\)/) });
    expect(existsSync(file('renamed.json'))).toBe(false);
  }, 60_000);

  it('a server that cannot be reached is named, with what to check', async () => {
    // A port nobody listens on: bind one, then close it.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const run = cli()('locate', 'record', '--environment', 'hall', '--source', `http://127.0.0.1:${port}`, '--token', 't');
    await expect(run).rejects.toThrow(new RegExp(`^cannot reach http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\): is \`wiflow serve\` running there\\?`));
  });

  it('the older form (--capture) keeps working', async () => {
    await cli()('locate', 'reference', '--environment', file('hall.json'), '--capture', file('empty-hall.wfr'), '--out', file('old-form.json'));
    expect(readReference(file('old-form.json')).links).toHaveLength(1);
  }, 60_000);
});

describe('wiflow locate check', () => {
  it('a fitting reference passes, against the environment and a capture of its radios', async () => {
    const lines: string[] = [];
    await cli(lines)('locate', 'check', '--environment', file('hall.json'), '--reference', file('ref.json'), '--capture', file('empty-hall.wfr'));
    expect(lines).toEqual([expect.stringMatching(/ref\.json fits hall: router->laptop 3×3×30 20 MHz; 1 link of .* checked/)]);
  });

  it('a capture none of whose links the environment has is refused, naming both, instead of passing with 0 links checked', async () => {
    await cli()('locate', 'reference', '--environment', file('hall-renamed.json'), '--simulate', '2', '--out', file('ref-renamed.json'));
    const run = cli()('locate', 'check', '--environment', file('hall-renamed.json'), '--reference', file('ref-renamed.json'), '--capture', file('empty-hall.wfr'));
    await expect(run).rejects.toMatchObject({ code: 'WIFLOW_POSE_CAPTURE_LINKS_UNKNOWN', message: expect.stringMatching(/none of its links \(router->laptop\) is a link of environment hall \(router->desk\)/) });
  }, 60_000);

  it('a reference that does not fit names the link and the field: antennas, a link it lacks, bandwidth, a missing file', async () => {
    const check = (environment: string, reference: string, ...more: string[]) => cli()('locate', 'check', '--environment', file(environment), '--reference', file(reference), ...more);
    await expect(check('hall-2-antennas.json', 'ref.json')).rejects.toMatchObject({ code: 'WIFLOW_POSE_REFERENCE_MISMATCH', message: expect.stringMatching(/^link router->laptop: field nrx \(receive antennas\) of the empty-room reference is 3, the link has 2/), details: { link: 'router->laptop', field: 'nrx (receive antennas)' } });
    await expect(check('hall-second-receiver.json', 'ref.json')).rejects.toMatchObject({ code: 'WIFLOW_POSE_REFERENCE_MISSING', message: expect.stringMatching(/environment hall: link router->tv-box has no entry in the empty-room reference \(field links/) });
    const wide = JSON.parse(readFileSync(file('ref.json'), 'utf8'));
    wide.links[0].bandwidthHz = 40e6;
    writeFileSync(file('ref-40.json'), JSON.stringify(wide));
    await expect(check('hall.json', 'ref-40.json', '--capture', file('empty-hall.wfr'))).rejects.toMatchObject({ code: 'WIFLOW_POSE_REFERENCE_MISMATCH', message: expect.stringMatching(/link router->laptop: field bandwidthHz of the empty-room reference is 40 MHz, the link has 20 MHz/) });
    await expect(check('hall.json', 'nothing.json')).rejects.toMatchObject({ code: 'WIFLOW_POSE_REFERENCE_MISSING', message: expect.stringMatching(/nothing\.json: it does not exist/) });
  });

  it('a reference of another subcarrier grid or channel than the radios now, and a file that is not a reference, are refused naming the field', async () => {
    const check = (reference: string) => cli()('locate', 'check', '--environment', file('hall.json'), '--reference', file(reference), '--capture', file('empty-hall.wfr'));
    const recorded = JSON.parse(readFileSync(file('ref.json'), 'utf8'));
    // Recorded on the Intel 5300's 40 MHz grouping (30 groups, steps of 4); the radios now report the 20 MHz one.
    const grid = structuredClone(recorded);
    grid.links[0].subcarriers = Array.from({ length: 30 }, (_, i) => (i < 15 ? -58 + 4 * i : 2 + 4 * (i - 15)));
    writeFileSync(file('ref-grid.json'), JSON.stringify(grid));
    await expect(check('ref-grid.json')).rejects.toMatchObject({ code: 'WIFLOW_POSE_REFERENCE_MISMATCH', message: expect.stringMatching(/^link router->laptop: field subcarriers\[0\] \(index\) of the empty-room reference is -58, the link has -28/), details: { link: 'router->laptop', field: 'subcarriers[0] (index)' } });
    const channel = structuredClone(recorded);
    channel.links[0].centerFrequencyHz = 2.437e9;
    writeFileSync(file('ref-channel.json'), JSON.stringify(channel));
    await expect(check('ref-channel.json')).rejects.toMatchObject({ code: 'WIFLOW_POSE_REFERENCE_MISMATCH', message: expect.stringMatching(/field centerFrequencyHz of the empty-room reference is 2437 MHz, the link has 5320 MHz/) });
    const broken = structuredClone(recorded);
    broken.links[0].re = broken.links[0].re.slice(1);
    writeFileSync(file('ref-broken.json'), JSON.stringify(broken));
    await expect(check('ref-broken.json')).rejects.toMatchObject({ code: 'WIFLOW_POSE_DATASET_INVALID', message: expect.stringMatching(/ref-broken\.json is not an empty-room reference: links\.0: re and im must hold ntx × nrx × subcarriers values/) });
  });
});

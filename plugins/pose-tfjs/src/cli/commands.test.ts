import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { readReference, registerPoseCommands } from '../index.js';

/** Commander's own usage errors (it writes them before throwing under exitOverride), kept for the assertions instead of the test log. */
function program(lines: string[], usageErrors: string[] = []) {
  const p = new Command('wiflow').exitOverride().configureOutput({ writeErr: (text) => usageErrors.push(text) });
  registerPoseCommands(p, { runtime: async () => ({ dataDir: '/tmp/wiflow-pose-cli-test' }) as never, print: (l) => lines.push(l) });
  return p;
}

describe('wiflow train / eval / calibrate', () => {
  it('registers the three commands with their documented options', () => {
    const p = program([]);
    const names = p.commands.map((c) => c.name());
    expect(names).toEqual(expect.arrayContaining(['train', 'eval', 'calibrate', 'calibrate-pose-v1', 'eval-calibrated']));
    const calibrateOptions = p.commands.find((c) => c.name() === 'calibrate')!.options.map((o) => o.long);
    expect(calibrateOptions).toEqual(expect.arrayContaining(['--recording', '--held-out', '--models', '--twin-seconds', '--json']));
    const curveOptions = p.commands.find((c) => c.name() === 'eval-calibrated')!.options.map((o) => o.long);
    expect(curveOptions).toEqual(expect.arrayContaining(['--small', '--json', '--labels']));
    const evalOptions = p.commands.find((c) => c.name() === 'eval')!.options.map((o) => o.long);
    expect(evalOptions).toEqual(expect.arrayContaining(['--json', '--split', '--small', '--model', '--tracking']));
    const trainOptions = p.commands.find((c) => c.name() === 'train')!.options.map((o) => o.long);
    expect(trainOptions).toEqual(expect.arrayContaining(['--resume', '--seed', '--epochs', '--time-budget', '--out']));
  });

  it('rejects a bad split and a missing model directory with clear errors', async () => {
    await expect(program([]).parseAsync(['node', 'wiflow', 'eval', '--split', 'bogus'])).rejects.toThrow(/--split must be test, val or train/);
    await expect(program([]).parseAsync(['node', 'wiflow', 'eval', '--model', '/nonexistent/model'])).rejects.toThrow(/no model directory/);
  });

  it('calibrate requires a recording', async () => {
    const usageErrors: string[] = [];
    await expect(program([], usageErrors).parseAsync(['node', 'wiflow', 'calibrate'])).rejects.toThrow(/--recording/);
    expect(usageErrors.join('')).toMatch(/required option '--recording <dir>' not specified/);
  });
});

describe('wiflow locate', () => {
  it('records an empty-room reference for a scenario, and says what it needs when given neither a capture nor --simulate', async () => {
    const scenario = fileURLToPath(new URL('../../../../examples/scenarios/home-monitored.yaml', import.meta.url));
    const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-locate-cli-'));
    try {
      const out = path.join(dir, 'ref.json');
      const lines: string[] = [];
      await program(lines).parseAsync(['node', 'wiflow', 'locate', 'reference', '--environment', scenario, '--simulate', '2', '--out', out]);
      const reference = readReference(out);
      expect(reference.environmentId).toBe('home');
      expect(reference.links.length).toBeGreaterThan(0);
      for (const l of reference.links) expect(l.packets).toBeGreaterThanOrEqual(10);
      expect(lines.join('\n')).toMatch(/wrote .*ref\.json: \S+->\S+ \d+ packets/);
      await expect(program([]).parseAsync(['node', 'wiflow', 'locate', 'reference', '--environment', scenario, '--out', out])).rejects.toThrow(/--capture <file>.*--simulate/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

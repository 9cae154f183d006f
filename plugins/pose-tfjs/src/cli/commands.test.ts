import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { registerPoseCommands } from '../index.js';

function program(lines: string[]) {
  const p = new Command('wiflow').exitOverride();
  registerPoseCommands(p, { runtime: async () => ({ dataDir: '/tmp/wiflow-pose-cli-test' }) as never, print: (l) => lines.push(l) });
  return p;
}

describe('wiflow train / eval / calibrate', () => {
  it('registers the three commands with their documented options', () => {
    const p = program([]);
    const names = p.commands.map((c) => c.name());
    expect(names).toEqual(expect.arrayContaining(['train', 'eval', 'calibrate']));
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
    await expect(program([]).parseAsync(['node', 'wiflow', 'calibrate'])).rejects.toThrow(/--recording/);
  });
});

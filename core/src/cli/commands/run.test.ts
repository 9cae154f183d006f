import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { flowInterface } from '../../index.js';
import { buildFlow } from '../../testing/index.js';
import { parseInputPairs, readFlowFile } from './run.js';

const iface = flowInterface(
  buildFlow(
    {
      message: ['io.input', { name: 'message', valueType: 'text' }],
      count: ['io.input', { name: 'count', valueType: 'integer' }],
      flag: ['io.input', { name: 'flag', valueType: 'boolean' }],
      shape: ['io.input', { name: 'shape', valueType: 'json' }],
      capture: ['io.input', { name: 'capture', valueType: 'file' }],
    },
    [],
  ),
);

describe('wiflow run --input', () => {
  it('reads each value by the kind its input declares', () => {
    expect(parseInputPairs(['message=123', 'count=7', 'flag=true', 'shape={"a":[1]}', 'capture=captures/a=b.wfr'], iface)).toEqual({
      message: '123',
      count: 7,
      flag: true,
      shape: { a: [1] },
      capture: 'captures/a=b.wfr',
    });
    // a quoted JSON string is unquoted, as before
    expect(parseInputPairs(['message="hello"'], iface)).toEqual({ message: 'hello' });
  });

  it('refuses undeclared names and values that do not parse, naming the input', () => {
    expect(() => parseInputPairs(['mesage=hi'], iface)).toThrow('--input mesage: this flow has no input named mesage (inputs: message, count, flag, shape, capture)');
    expect(() => parseInputPairs(['count=7.5'], iface)).toThrow('--input count: "7.5" is not an integer');
    expect(() => parseInputPairs(['flag=yes'], iface)).toThrow('--input flag: "yes" is not true or false');
    expect(() => parseInputPairs(['=x'], iface)).toThrow('--input expects name=value');
  });

  it('says which file is not a flow', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-run-'));
    const bad = path.join(dir, 'bad.json');
    writeFileSync(bad, '{"nodes": 3');
    expect(() => readFlowFile(bad)).toThrow(`cannot read flow ${bad}`);
    writeFileSync(bad, 'null');
    expect(() => readFlowFile(bad)).toThrow(`${bad}: not a flow`);
    expect(() => readFlowFile(path.join(dir, 'missing.json'))).toThrow('ENOENT');
  });
});

import { describe, expect, it } from 'vitest';
import { decodeValue, encodeValue, valueSet, valuesOf } from './codec.js';
import { fillMessageId, fillSubject, streamFor, Subjects } from './subjects.js';

describe('NATS codec', () => {
  it('round-trips CSI frames with their typed arrays intact', () => {
    const frame = { link: { tx: 'a', rx: 'b' }, subcarriers: new Int16Array([-28, -26, 27]), csi: { re: new Float32Array([1.5, -2, 3]), im: new Float32Array([0, 0.25, -1]) }, time: 1 };
    const back = decodeValue(encodeValue(frame)) as typeof frame;
    expect(back.subcarriers).toBeInstanceOf(Int16Array);
    expect([...back.subcarriers]).toEqual([-28, -26, 27]);
    expect(back.csi.re).toBeInstanceOf(Float32Array);
    expect([...back.csi.im]).toEqual([0, 0.25, -1]);
  });

  it('rejects bytes that are not a wiflow message', () => {
    expect(() => decodeValue(new Uint8Array([0xff, 0x00, 0x12]))).toThrow();
  });
});

describe('subjects', () => {
  it('fills templates from the value and keeps tokens safe', () => {
    expect(fillSubject('pose.{environment}', { environmentId: 'living room' })).toBe('pose.living_room');
    expect(fillSubject('csi.{environment}.{link}', { environmentId: 'home', link: { tx: 'ap.1', rx: 'rx' } })).toBe('csi.home.ap_1-rx');
    expect(Subjects.alerts('a.b')).toBe('alerts.a_b');
    expect(streamFor('csi.x.y')).toBe('WIFLOW_CSI');
    expect(streamFor('other.x')).toBeUndefined();
  });
});

describe('window sets and message ids', () => {
  it('carries a set of values as one message and gives the members back in order', () => {
    const set = valueSet([{ link: { tx: 't', rx: 'a' }, amplitude: new Float32Array([1]) }, { link: { tx: 't', rx: 'b' } }]);
    const back = valuesOf(decodeValue(encodeValue(set))) as { link: { rx: string }; amplitude?: Float32Array }[];
    expect(back.map((v) => v.link.rx)).toEqual(['a', 'b']);
    expect(back[0].amplitude).toBeInstanceOf(Float32Array);
    expect(valuesOf({ x: 1 })).toEqual([{ x: 1 }]);
  });

  it('refuses a message id template naming a field the value lacks (all ids would collide)', () => {
    expect(fillMessageId('{environment}.{endTimestamp}', { environmentId: 'home', endTimestamp: 5 })).toBe('home.5');
    expect(() => fillMessageId('{environment}.{timestamp}', { environmentId: 'home', endTimestamp: 5 })).toThrow(/no field timestamp/);
  });
});

import { describe, expect, it } from 'vitest';
import { decodeValue, encodeValue } from './codec.js';
import { fillSubject, streamFor, Subjects } from './subjects.js';

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

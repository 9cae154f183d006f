import { describe, expect, it } from 'vitest';
import { JOB_RECORD_LIMITS, toJobRecord, type JobEvent, type JobRecordSource } from '../index.js';

const source = (outputs: Record<string, unknown> = {}): JobRecordSource => ({
  id: 'j', flowId: 'f', flowName: 'F', userId: 'u', status: 'completed', createdAt: 1, startedAt: 2, finishedAt: 3, error: null, errorCode: null, labels: { source: 'build' }, outputs,
});
const events = (n: number, data: (i: number) => unknown = () => null): JobEvent[] => Array.from({ length: n }, (_, i) => ({ seq: i + 1, event: `e${i + 1}`, data: data(i), timestamp: i }));

describe('toJobRecord', () => {
  it('stores a short log and small outputs whole', () => {
    const record = toJobRecord(source({ result: 'HELLO', list: [1, 2] }), events(3, (i) => ({ i })));
    expect(record.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(record.events[2].data).toEqual({ i: 2 });
    expect(record.outputs).toEqual({ result: 'HELLO', list: [1, 2] });
    expect(record.eventsOmitted).toBe(0);
  });

  it('keeps the first and last events of a long log and counts the rest, also across saves', () => {
    const { headEvents, tailEvents } = JOB_RECORD_LIMITS;
    const n = headEvents + tailEvents + 123;
    const record = toJobRecord(source(), events(n));
    expect(record.events).toHaveLength(headEvents + tailEvents);
    expect(record.events[headEvents - 1].seq).toBe(headEvents);
    expect(record.events[headEvents].seq).toBe(headEvents + 124);
    expect(record.events.at(-1)!.seq).toBe(n);
    expect(record.eventsOmitted).toBe(123);
    expect(toJobRecord({ ...source(), eventsOmitted: 123 }, events(2)).eventsOmitted).toBe(123);
  });

  it('replaces event data and outputs over their byte caps, and values JSON cannot hold, by a marker', () => {
    const big = 'x'.repeat(JOB_RECORD_LIMITS.maxOutputBytes);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const record = toJobRecord(source({ big, small: 'ok', cyclic }), events(2, (i) => (i === 0 ? 'y'.repeat(JOB_RECORD_LIMITS.maxEventBytes) : 'fine')));
    expect(record.outputs.big).toEqual({ omitted: true, bytes: big.length + 2 });
    expect(record.outputs.small).toBe('ok');
    expect(record.outputs.cyclic).toEqual({ omitted: true, reason: 'not JSON' });
    expect(record.events[0].data).toEqual({ omitted: true, bytes: JOB_RECORD_LIMITS.maxEventBytes + 2 });
    expect(record.events[1].data).toBe('fine');
  });
});

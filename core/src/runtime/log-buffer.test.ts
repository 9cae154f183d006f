import { describe, expect, it } from 'vitest';
import { LogBuffer, createLogger, recordingLogger } from '../index.js';
import { createTestRuntime } from '../testing/index.js';

describe('LogBuffer', () => {
  it('keeps the newest entries up to its capacity, in order', () => {
    const buffer = new LogBuffer(3);
    for (let i = 1; i <= 5; i++) buffer.record('info', null, `m${i}`, null);
    expect(buffer.entries().map((e) => e.message)).toEqual(['m3', 'm4', 'm5']);
    expect(buffer.last(2).map((e) => e.message)).toEqual(['m4', 'm5']);
    buffer.configure({ capacity: 2 });
    expect(buffer.entries().map((e) => e.message)).toEqual(['m4', 'm5']);
    buffer.configure({ capacity: 4 });
    buffer.record('info', null, 'm6', null);
    expect(buffer.entries().map((e) => e.message)).toEqual(['m4', 'm5', 'm6']);
  });

  it('answers before/after a timestamp the way Langflow reads its buffer', () => {
    const buffer = new LogBuffer(10);
    const entries = ['a', 'b', 'c', 'd'].map((m) => buffer.record('warn', null, m, null)!);
    // Give the entries distinct, known times.
    entries.forEach((e, i) => (e.timestamp = 1000 + i * 10));
    expect(buffer.after(1010, 2).map((e) => e.message)).toEqual(['b', 'c']);
    expect(buffer.before(1020, 5).map((e) => e.message)).toEqual(['a', 'b']);
    expect(buffer.before(1020, 1).map((e) => e.message)).toEqual(['b']);
    // Nothing that late: the newest n.
    expect(buffer.before(9999, 2).map((e) => e.message)).toEqual(['c', 'd']);
  });

  it('records nothing below its level or with capacity 0, and tells subscribers about new entries', () => {
    const buffer = new LogBuffer(5, 'warn');
    const seen: string[] = [];
    const off = buffer.subscribe((e) => seen.push(e.message));
    expect(buffer.record('info', null, 'quiet', null)).toBeNull();
    buffer.record('error', 'x', 'loud', null);
    off();
    buffer.record('error', 'x', 'unheard', null);
    expect(seen).toEqual(['loud']);
    const disabled = new LogBuffer(0);
    expect(disabled.enabled).toBe(false);
    expect(disabled.record('error', null, 'nothing', null)).toBeNull();
  });

  it('a recording logger keeps component names and never keeps secrets, at any depth', () => {
    const buffer = new LogBuffer(10, 'debug');
    const lines: string[] = [];
    const logger = recordingLogger(createLogger({ level: 'debug', write: (l) => lines.push(l) }), buffer);
    logger.child('studio').child('runs').warn('run failed', { apiKey: 'sk-123', request: { headers: { authorization: 'Bearer abc' }, path: '/x' }, error: new Error('kaput') });
    const [entry] = buffer.entries();
    expect(entry).toMatchObject({ level: 'warn', component: 'studio.runs', message: 'run failed' });
    expect(entry.fields).toEqual({ apiKey: '[redacted]', request: { headers: { authorization: '[redacted]' }, path: '/x' }, error: 'kaput' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toContain('sk-123');
    expect(lines[0]).not.toContain('Bearer abc');
  });

  it('never writes a password given in a URL, in a field or in the message, and keeps the rest of the URL', () => {
    const buffer = new LogBuffer(10, 'debug');
    const lines: string[] = [];
    const logger = recordingLogger(createLogger({ level: 'debug', write: (l) => lines.push(l) }), buffer);
    logger.warn('cannot reach mqtt://wiflow:hunter2@broker:1883 now', { url: 'mqtts://wiflow:p%40ss@broker:8883/x', servers: ['nats://a:b1@n1:4222', 'nats://n2:4222'], error: new Error('connect mongodb://u:pw9@db/wiflow failed'), plain: 'user@example.com' });
    const [entry] = buffer.entries();
    expect(entry.message).toBe('cannot reach mqtt://wiflow:***@broker:1883 now');
    expect(entry.fields).toEqual({ url: 'mqtts://wiflow:***@broker:8883/x', servers: ['nats://a:***@n1:4222', 'nats://n2:4222'], error: 'connect mongodb://u:***@db/wiflow failed', plain: 'user@example.com' });
    for (const secret of ['hunter2', 'p%40ss', 'b1@', 'pw9']) expect(lines[0]).not.toContain(secret);
    expect(lines[0]).toContain('mqtt://wiflow:***@broker:1883');
  });

  it("the runtime's logger feeds runtime.logs, sized by config logs.bufferSize", async () => {
    const runtime = await createTestRuntime({ config: { logs: { bufferSize: 2 } } });
    runtime.logger.info('one');
    runtime.logger.info('two', { password: 'hunter2' });
    runtime.logger.error('three');
    expect(runtime.logs.entries().map((e) => e.message)).toEqual(['two', 'three']);
    expect(JSON.stringify(runtime.logs.entries())).not.toContain('hunter2');
    runtime.config.update({ logs: { bufferSize: 0 } });
    expect(runtime.logs.enabled).toBe(false);
    await runtime.stop(1000);
  });
});

import type { LogEntry } from '@wiflow/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStudio, type TestStudio } from '../testing/test-plugins.js';
import { toLangflowLogs } from './log-routes.js';

let s: TestStudio;
let key: string;
beforeAll(async () => {
  s = await startTestStudio();
  const user = await s.runtime.storage.users.create({ username: 'operator-admin', password: 'admin-password-123', roles: ['admin'] });
  key = (await s.runtime.storage.apiKeys.create({ userId: user.id, name: 'logs' })).key;
});
afterAll(async () => {
  await s?.close();
});

const logs = (query = '') => fetch(`${s.url}/logs${query}`, { headers: { 'x-api-key': key } });

describe('GET /logs', () => {
  it("answers the newest 10 entries by default, or lines_before of them, in Langflow's shape", async () => {
    for (let i = 0; i < 12; i++) s.runtime.logger.child('logs-test').info(`entry ${i}`, { i, token: `secret-${i}` });
    const all = Object.values((await (await logs()).json()) as Record<string, string>).join('\n').split('\n');
    expect(all.filter((m) => m.includes('[logs-test]'))).toHaveLength(10);
    expect(all.at(-1)).toBe('INFO [logs-test] entry 11 {"i":11,"token":"[redacted]"}');
    const three = Object.values((await (await logs('?lines_before=3')).json()) as Record<string, string>).join('\n').split('\n');
    expect(three).toEqual(['entry 9', 'entry 10', 'entry 11'].map((m, j) => `INFO [logs-test] ${m} {"i":${9 + j},"token":"[redacted]"}`));
  });

  it("refuses what Langflow refuses: before and after at once, after without a timestamp (400), non-integers (422)", async () => {
    const both = await logs('?lines_before=1&lines_after=1&timestamp=1');
    expect(both.status).toBe(400);
    expect(await both.json()).toEqual({ detail: 'Cannot request logs before and after the timestamp', code: 'WIFLOW_STUDIO_BAD_LOG_QUERY' });
    const noTimestamp = await logs('?lines_after=2');
    expect(noTimestamp.status).toBe(400);
    expect(((await noTimestamp.json()) as { detail: string }).detail).toBe('Timestamp is required when requesting logs after the timestamp');
    const notInt = await logs('?lines_before=many');
    expect(notInt.status).toBe(422);
    expect(((await notInt.json()) as { detail: { loc: string[] }[] }).detail[0].loc).toEqual(['query', 'lines_before']);
  });

  it('answers 501 "Log retrieval is disabled" on both paths when logs.bufferSize is 0', async () => {
    s.runtime.config.update({ logs: { bufferSize: 0 } });
    try {
      for (const path of ['/logs', '/logs-stream']) {
        const res = await fetch(`${s.url}${path}`, { headers: { 'x-api-key': key } });
        expect(res.status).toBe(501);
        expect(await res.json()).toEqual({ detail: 'Log retrieval is disabled', code: 'WIFLOW_STUDIO_LOGS_DISABLED' });
      }
    } finally {
      s.runtime.config.update({ logs: { bufferSize: 1000 } });
    }
    expect((await logs()).status).toBe(200);
  });

  it('keeps entries of the same millisecond under one key, joined by a newline', () => {
    const entry = (seq: number, timestamp: number, message: string): LogEntry => ({ seq, timestamp, level: 'warn', component: null, message, fields: null });
    expect(toLangflowLogs([entry(1, 1_700_000_000_000, 'a'), entry(2, 1_700_000_000_000, 'b'), entry(3, 1_700_000_000_001, 'c')])).toEqual({
      '1700000000000': 'WARN a\nWARN b',
      '1700000000001': 'WARN c',
    });
  });
});

describe('GET /logs-stream', () => {
  it('streams each new entry as {"<epoch ms>": message} and a blank line, nothing from before it opened', async () => {
    s.runtime.logger.info('before the stream');
    const abort = new AbortController();
    const res = await fetch(`${s.url}/logs-stream`, { headers: { 'x-api-key': key }, signal: abort.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    s.runtime.logger.child('logs-test').warn('after the stream opened');
    let text = '';
    while (!text.endsWith('\n\n')) text += (await reader.read()).value ?? '';
    const event = JSON.parse(text.trim()) as Record<string, string>;
    const [[timestamp, message]] = Object.entries(event);
    expect(message).toBe('WARN [logs-test] after the stream opened');
    expect(Math.abs(Number(timestamp) - Date.now())).toBeLessThan(60_000);
    abort.abort();
    await reader.cancel().catch(() => undefined);
  });
});

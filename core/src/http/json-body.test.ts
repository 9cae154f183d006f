import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { boundedEcho, isJsonTooDeep, jsonBodyParser, jsonNestingExceeds } from '../index.js';

describe('bounded JSON bodies', () => {
  it('counts nesting outside strings only', () => {
    expect(jsonNestingExceeds('[[["]]]]]]"]]]', 3)).toBe(false);
    expect(jsonNestingExceeds('[[[[]]]]', 3)).toBe(true);
    expect(jsonNestingExceeds(Buffer.from('{"a":"\\"[[[[","b":[1]}'), 2)).toBe(false);
  });

  it('refuses too-deep and too-large bodies over real HTTP before parsing; an ordinary body parses', async () => {
    const app = express();
    app.post('/', jsonBodyParser({ limit: '1kb', maxDepth: 8 }), (req, res) => void res.json({ got: req.body }));
    app.use((error: { status?: number; type?: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(error.status ?? 500).json({ deep: isJsonTooDeep(error), type: error.type ?? null });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const post = async (body: string) => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    try {
      expect(await post('{"a":[1,{"b":2}]}')).toEqual({ status: 200, body: { got: { a: [1, { b: 2 }] } } });
      expect(await post('['.repeat(500) + ']'.repeat(500))).toEqual({ status: 400, body: { deep: true, type: 'entity.verify.failed' } });
      expect((await post(`{"a":"${'x'.repeat(2000)}"}`)).status).toBe(413);
    } finally {
      server.close();
    }
  });

  it('echoes a bounded copy of any value and says what it cut', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    expect(JSON.stringify(boundedEcho(deep))).toBe('[[["[array of 1 items truncated]"]]]');
    const long = boundedEcho('y'.repeat(1000)) as string;
    expect(long.startsWith('y'.repeat(200))).toBe(true);
    expect(long).toContain('800 more characters truncated');
    expect(boundedEcho(Array.from({ length: 100 }, (_, i) => i))).toHaveLength(11);
    expect(boundedEcho({ a: 1, b: 'x' })).toEqual({ a: 1, b: 'x' });
  });
});

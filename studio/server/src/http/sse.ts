import type { Response } from 'express';

/** Open a Server-Sent Events response (no buffering, kept alive with comments). */
export function openSse(res: Response, keepAliveMs = 15_000): { send(event: string, data: unknown, id?: number | string): void; close(): void } {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('Connection', 'keep-alive');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  const timer = setInterval(() => res.write(': keep-alive\n\n'), keepAliveMs);
  timer.unref();
  res.on('close', () => clearInterval(timer));
  return {
    send(event, data, id) {
      if (res.writableEnded) return;
      res.write(`${id !== undefined ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    },
    close() {
      clearInterval(timer);
      if (!res.writableEnded) res.end();
    },
  };
}

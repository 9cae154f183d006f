import type { Request, Response } from 'express';
import type { Job, JobEvent } from '@wiflow/core';
import { openSse } from '../http/sse.js';

/** An event as delivered to clients: Langflow's `{event, data}` plus wiflow's sequence number and time. */
export function toWireEvent(e: JobEvent): Record<string, unknown> {
  return { event: e.event, data: e.data, seq: e.seq, timestamp: e.timestamp };
}

/** The sequence number a client resumes after: `Last-Event-ID` header, or `?since=`. */
export function resumeSeq(req: Request): number | undefined {
  const raw = req.get('last-event-id') ?? (typeof req.query.since === 'string' ? req.query.since : undefined);
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** Stream a job's events as SSE (`id:` is the sequence number, so `Last-Event-ID` resumes); ends after `end`. */
export function streamJobSse(req: Request, res: Response, job: Job, after: number): void {
  const sse = openSse(res);
  let off: () => void = () => {};
  off = job.log.subscribe(after, (event) => {
    if (event === null) {
      sse.close();
      return;
    }
    sse.send(event.event, toWireEvent(event), event.seq);
  });
  res.on('close', () => off());
}

/** Stream a job's events as NDJSON, one event a line, until the job ends (direct delivery). */
export function streamJobNdjson(req: Request, res: Response, job: Job, after: number, first?: Record<string, unknown>): void {
  res.status(200);
  res.setHeader('Content-Type', 'application/x-ndjson');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('X-Accel-Buffering', 'no');
  if (first) res.write(`${JSON.stringify(first)}\n`);
  let off: () => void = () => {};
  off = job.log.subscribe(after, (event) => {
    if (event === null) {
      if (!res.writableEnded) res.end();
      return;
    }
    if (!res.writableEnded) res.write(`${JSON.stringify(toWireEvent(event))}\n`);
  });
  res.on('close', () => off());
}

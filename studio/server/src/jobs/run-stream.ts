import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { z } from 'zod';
import { openLangflowStream } from '../http/langflow-stream.js';
import { openSse } from '../http/sse.js';
import { parseWith } from '../http/validation.js';
import type { FlowRunner, RunRequest, StartedRun } from './flow-runner.js';
import { toWireEvent } from './job-events.js';
import { toMessageRead } from './message-routes.js';

/**
 * How a streamed run is framed: `langflow` (default) — one JSON object per event and a blank
 * line, what Langflow's clients parse; `sse` — Server-Sent Events with wiflow's extra events,
 * what the studio reads. Chosen with `?framing=`, not by `Accept`, because Langflow answers
 * its framing whatever `Accept` says and its users send `Accept: text/event-stream` too.
 */
export const RunStreamFramingSchema = z.enum(['langflow', 'sse']).default('langflow');

/** A framing of streamed runs. */
export type RunStreamFraming = z.output<typeof RunStreamFramingSchema>;

/** The framing a request asks for (422 for an unknown one). */
export function framingOf(req: Request): RunStreamFraming {
  return parseWith(z.object({ framing: RunStreamFramingSchema }), { framing: req.query.framing }, 'query').framing;
}

/** The RunResponse a streamed run ends with: the same object the non-streamed run answers. */
interface RunResult {
  outputs: Record<string, unknown>[];
  session_id: string | null;
}

/**
 * Stream runs one after the other. The first run starts before the response opens, so a bad
 * request (unknown flow, bad tweaks or inputs, an invalid flow) still gets its 4xx JSON answer;
 * a client that disconnects cancels the run in progress.
 */
export async function streamRuns(res: Response, runner: FlowRunner, requests: RunRequest[], outputs: string[] | null | undefined, framing: RunStreamFraming): Promise<void> {
  const first = await runner.start(requests[0]);
  res.setHeader('X-Job-Id', first.job.id);
  let current: StartedRun | undefined = first;
  res.on('close', () => void (current && !current.job.finished && current.job.cancel('client disconnected')));
  const next = async (i: number): Promise<StartedRun> => (current = i === 0 ? first : await runner.start(requests[i]));
  if (framing === 'sse') await streamSse(res, runner, requests.length, next, outputs);
  else await streamLangflow(res, runner, requests.length, next, outputs);
}

/**
 * Langflow's framing: `add_message` (the input, a MessageRead), `token` for each text value
 * reaching an `io.output` that collects all its values (`{chunk, id, timestamp}`, `id` being the
 * message it is stored as), `add_message` for each output message once stored, then `end`
 * `{result}`. A run that does not complete sends `error` `{error}` instead of `end`, as Langflow does.
 */
async function streamLangflow(res: Response, runner: FlowRunner, count: number, next: (i: number) => Promise<StartedRun>, outputs: string[] | null | undefined): Promise<void> {
  const stream = openLangflowStream(res);
  const result: RunResult = { outputs: [], session_id: null };
  for (let i = 0; i < count; i++) {
    let started: StartedRun;
    try {
      started = await next(i);
    } catch (error) {
      stream.send('error', { error: (error as Error).message });
      stream.close();
      return;
    }
    const input = await runner.recordInput(started);
    if (input) stream.send('add_message', toMessageRead(input));
    const tokenOutputs = new Set(runner.selectedOutputs(started, outputs).filter((o) => o.collect === 'all').map((o) => o.name));
    const messageIds: Record<string, string[]> = {};
    await new Promise<void>((resolve) => {
      started.job.log.subscribe(0, (event) => {
        if (event === null) return resolve();
        if (event.event !== 'output') return;
        const { name, value } = event.data as { name: string; value: unknown };
        if (typeof value !== 'string' || !tokenOutputs.has(name)) return;
        const id = randomUUID();
        (messageIds[name] ??= []).push(id);
        stream.send('token', { chunk: value, id, timestamp: new Date(event.timestamp).toISOString() });
      });
    });
    const { snapshot, runOutputs, messages } = await runner.result(started, outputs, { messageIds });
    for (const message of messages) stream.send('add_message', toMessageRead(message));
    if (snapshot.status !== 'completed') {
      stream.send('error', { error: snapshot.error ?? snapshot.status, status: snapshot.status, job_id: snapshot.id });
      stream.close();
      return;
    }
    result.outputs.push({ ...runOutputs, job_id: snapshot.id });
    result.session_id = started.sessionId;
  }
  stream.send('end', { result });
  stream.close();
}

/** The studio's SSE framing: `add_message` (text outputs), `output`, `progress`, `error`, then `end` `{result}` always. */
async function streamSse(res: Response, runner: FlowRunner, count: number, next: (i: number) => Promise<StartedRun>, outputs: string[] | null | undefined): Promise<void> {
  const sse = openSse(res);
  const result: RunResult = { outputs: [], session_id: null };
  for (let i = 0; i < count; i++) {
    let started: StartedRun;
    try {
      started = await next(i);
    } catch (error) {
      sse.send('error', { error: (error as Error).message });
      break;
    }
    await runner.recordInput(started);
    await new Promise<void>((resolve) => {
      started.job.log.subscribe(0, (event) => {
        if (event === null) return resolve();
        if (event.event === 'output') {
          const { name, value } = event.data as { name: string; value: unknown };
          if (typeof value === 'string') sse.send('add_message', { event: 'add_message', data: { text: value, sender: 'Machine', sender_name: 'AI', session_id: started.sessionId, flow_id: started.flow.id, output: name }, seq: event.seq });
          else sse.send('output', toWireEvent(event));
        } else if (event.event === 'progress') sse.send('progress', toWireEvent(event));
        else if (event.event === 'job_failed' || event.event === 'job_timed_out' || event.event === 'job_cancelled') sse.send('error', toWireEvent(event));
      });
    });
    const { snapshot, runOutputs } = await runner.result(started, outputs);
    result.session_id = started.sessionId;
    result.outputs.push({ ...runOutputs, job_id: snapshot.id, status: snapshot.status });
    if (snapshot.status !== 'completed') break;
  }
  sse.send('end', { event: 'end', data: { result } });
  sse.close();
}

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

/** Writes the runs of one streamed request in one framing. */
interface RunStreamWriter {
  /** A later run could not start; true when that ends the stream (no `end` follows). */
  startFailed(message: string): boolean;
  /** Stream one run until it ends: its entry of the result and whether to stop after it, or null when its failure ended the stream. */
  run(started: StartedRun): Promise<{ entry: Record<string, unknown>; stop: boolean } | null>;
  /** Send `end` with the result and close. */
  end(result: RunResult): void;
}

/**
 * Stream runs one after the other. The first run starts before the response opens, so a bad
 * request (unknown flow, bad tweaks or inputs, an invalid flow) still gets its 4xx JSON answer;
 * a client that disconnects cancels the run in progress.
 */
export async function streamRuns(res: Response, runner: FlowRunner, requests: RunRequest[], outputs: string[] | null | undefined, framing: RunStreamFraming): Promise<void> {
  let current: StartedRun = await runner.start(requests[0]);
  res.setHeader('X-Job-Id', current.job.id);
  res.on('close', () => void (!current.job.finished && current.job.cancel('client disconnected')));
  const writer = framing === 'sse' ? sseWriter(res, runner, outputs) : langflowWriter(res, runner, outputs);
  const result: RunResult = { outputs: [], session_id: null };
  for (let i = 0; i < requests.length; i++) {
    try {
      if (i > 0) current = await runner.start(requests[i]);
    } catch (error) {
      if (writer.startFailed((error as Error).message)) return;
      break;
    }
    const outcome = await writer.run(current);
    if (!outcome) return;
    result.outputs.push(outcome.entry);
    result.session_id = current.sessionId;
    if (outcome.stop) break;
  }
  writer.end(result);
}

/**
 * Langflow's framing: `add_message` (the input, a MessageRead), `token` for each text value
 * reaching an `io.output` that collects all its values (`{chunk, id, timestamp}`, `id` being the
 * message it is stored as), `add_message` for each output message once stored, then `end`
 * `{result}`. A run that does not complete sends `error` `{error}` instead of `end`, as Langflow does.
 */
function langflowWriter(res: Response, runner: FlowRunner, outputs: string[] | null | undefined): RunStreamWriter {
  const stream = openLangflowStream(res);
  return {
    startFailed(message) {
      stream.send('error', { error: message });
      stream.close();
      return true;
    },
    async run(started) {
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
      if (snapshot.status === 'completed') return { entry: { ...runOutputs, job_id: snapshot.id }, stop: false };
      stream.send('error', { error: snapshot.error ?? snapshot.status, status: snapshot.status, job_id: snapshot.id });
      stream.close();
      return null;
    },
    end(result) {
      stream.send('end', { result });
      stream.close();
    },
  };
}

/** The studio's SSE framing: `add_message` (text outputs), `output`, `progress`, `error`, then `end` `{result}` always. */
function sseWriter(res: Response, runner: FlowRunner, outputs: string[] | null | undefined): RunStreamWriter {
  const sse = openSse(res);
  return {
    startFailed(message) {
      sse.send('error', { error: message });
      return false;
    },
    async run(started) {
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
      return { entry: { ...runOutputs, job_id: snapshot.id, status: snapshot.status }, stop: snapshot.status !== 'completed' };
    },
    end(result) {
      sse.send('end', { event: 'end', data: { result } });
      sse.close();
    },
  };
}

import type { Response } from 'express';

/** A response streaming events in Langflow's framing. */
export interface LangflowStream {
  /** Write `{"event": event, "data": data}` and a blank line. */
  send(event: string, data: unknown): void;
  /** Write a line that is not an event (Langflow's `keepalive`); its clients skip it. */
  comment(text: string): void;
  close(): void;
}

/**
 * Open a response in Langflow's streaming framing: one JSON object per event followed by a
 * blank line, under `Content-Type: text/event-stream` as Langflow labels it (it is not SSE:
 * there are no `event:`/`data:` fields; Langflow's clients parse each line that starts with `{`).
 */
export function openLangflowStream(res: Response): LangflowStream {
  res.status(200);
  res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache, no-transform');
  res.setHeader('X-Accel-Buffering', 'no');
  res.flushHeaders();
  const writable = () => !res.writableEnded && !res.destroyed;
  return {
    send(event, data) {
      if (writable()) res.write(`${JSON.stringify({ event, data })}\n\n`);
    },
    comment(text) {
      if (writable()) res.write(`${text}\n\n`);
    },
    close() {
      if (!res.writableEnded) res.end();
    },
  };
}

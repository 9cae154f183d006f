import type { Response } from 'express';

/** A response streaming events in Langflow's framing. */
export interface LangflowStream {
  /** Write `{"event": event, "data": data}` and a blank line. */
  send(event: string, data: unknown): void;
  /** Write any JSON object and a blank line (the log stream's `{"<epoch ms>": message}`). */
  object(value: Record<string, unknown>): void;
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
  const object = (value: Record<string, unknown>) => {
    if (writable()) res.write(`${JSON.stringify(value)}\n\n`);
  };
  return {
    send: (event, data) => object({ event, data }),
    object,
    comment(text) {
      if (writable()) res.write(`${text}\n\n`);
    },
    close() {
      if (!res.writableEnded) res.end();
    },
  };
}

import { ApiError, failed, getToken } from './client';

/** One server-sent event. */
export interface SseEvent {
  event: string;
  data: unknown;
  id?: string;
}

/**
 * POST (or GET) and read a server-sent event stream with the bearer token (EventSource
 * cannot send headers). Calls `onEvent` per event; resolves when the stream ends. A non-2xx
 * answer throws `ApiError` with its status (as `api` does; a 401 logs out).
 */
export async function readSse(path: string, init: RequestInit & { json?: unknown }, onEvent: (e: SseEvent) => void, signal?: AbortSignal): Promise<void> {
  const headers = new Headers(init.headers);
  const token = getToken();
  if (token) headers.set('Authorization', `Bearer ${token}`);
  headers.set('Accept', 'text/event-stream');
  let body = init.body;
  if (init.json !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(init.json);
  }
  const response = await fetch(path, { ...init, headers, body, signal });
  if (!response.ok || !response.body) {
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // plain text (or nothing)
    }
    const error = failed(path, response.status, parsed || null);
    throw typeof parsed === 'string' && parsed ? new ApiError(parsed, response.status, parsed) : error;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let split: number;
    while ((split = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, split);
      buffer = buffer.slice(split + 2);
      let event = 'message';
      let id: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim();
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
        else if (line.startsWith('id:')) id = line.slice(3).trim();
      }
      if (data.length === 0) continue;
      let parsed: unknown = data.join('\n');
      try {
        parsed = JSON.parse(parsed as string);
      } catch {
        // plain text data
      }
      onEvent({ event, data: parsed, id });
    }
  }
}

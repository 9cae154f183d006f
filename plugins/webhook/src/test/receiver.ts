// A real HTTP receiver on loopback that checks signatures with its own HMAC code (not the plugin's).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { ArrivalWaiters } from '@wiflow/core/testing';

/** One request the receiver got. */
export interface Received {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  /** Whether the signature matched the secret and the timestamp was fresh. */
  signatureValid: boolean;
  /** The status the receiver answered. */
  answered: number;
}

/** Decide the status for a request (default 200). */
export type Responder = (request: Received, attemptOfDelivery: number) => number | { status: number; headers?: Record<string, string> };

/** A webhook receiver: records requests, verifies signatures, answers what `respond` says. */
export class Receiver {
  readonly requests: Received[] = [];
  readonly #waiters = new ArrivalWaiters();
  readonly #attempts = new Map<string, number>();
  respond: Responder = () => 200;
  url = '';
  #server: Server;

  constructor(readonly secret: string) {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const received: Received = { at: Date.now(), headers: req.headers, body, json: JSON.parse(body) as Record<string, unknown>, signatureValid: this.#verify(req.headers, body), answered: 0 };
        const deliveryId = String(req.headers['x-wiflow-delivery']);
        const attempt = (this.#attempts.get(deliveryId) ?? 0) + 1;
        this.#attempts.set(deliveryId, attempt);
        const answer = received.signatureValid ? this.respond(received, attempt) : 401;
        const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : { status: answer.status, headers: answer.headers ?? {} };
        received.answered = status;
        this.requests.push(received);
        res.writeHead(status, { 'content-type': 'text/plain', ...headers });
        res.end(status < 300 ? 'ok' : 'nope');
        this.#waiters.arrived();
      });
    });
  }

  /** The documented verification, written independently: HMAC-SHA256 over "<timestamp>.<body>", 5 minutes tolerance. */
  #verify(headers: IncomingHttpHeaders, body: string): boolean {
    const timestamp = String(headers['x-wiflow-timestamp'] ?? '');
    const signature = String(headers['x-wiflow-signature'] ?? '');
    if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
    const expected = Buffer.from('sha256=' + createHmac('sha256', this.secret).update(timestamp + '.' + body).digest('hex'));
    const actual = Buffer.from(signature);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', () => resolve()));
    const address = this.#server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/hooks/wiflow`;
    return this.url;
  }

  /** Requests with a 2xx answer. */
  accepted(): Received[] {
    return this.requests.filter((r) => r.answered >= 200 && r.answered < 300);
  }

  /** Resolve when `test` holds (checked now and on every request); reject after `timeoutMs` with `what`. */
  until(test: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    return this.#waiters.until(test, what, timeoutMs, () => `${this.requests.length} requests`);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

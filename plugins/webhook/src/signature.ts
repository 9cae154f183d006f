import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header names of a delivery. */
export const WebhookHeaders = Object.freeze({
  /** `sha256=<hex HMAC-SHA256 of "<timestamp>.<raw body>" keyed with the webhook secret>`. */
  signature: 'x-wiflow-signature',
  /** Unix seconds when this attempt was signed. */
  timestamp: 'x-wiflow-timestamp',
  /** Delivery id (the same on every attempt; receivers deduplicate with it). */
  delivery: 'x-wiflow-delivery',
  /** The event type, e.g. `alert.fall_detection`. */
  event: 'x-wiflow-event',
  /** The webhook registration id. */
  webhook: 'x-wiflow-webhook-id',
  /** Attempt number, 1-based. */
  attempt: 'x-wiflow-attempt',
});

/** The signature header value for a body signed at `timestamp` (unix seconds). */
export function signPayload(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** Why a delivery failed verification, or null when it is authentic and fresh. */
export function verifyWebhookSignature(
  secret: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  rawBody: string | Buffer,
  options: { toleranceSeconds?: number; now?: number } = {},
): string | null {
  const tolerance = options.toleranceSeconds ?? 300;
  if (!headers.signature || !headers.timestamp) return 'missing signature or timestamp header';
  if (!/^\d{1,12}$/.test(headers.timestamp)) return 'timestamp is not unix seconds';
  const timestamp = Number(headers.timestamp);
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(now - timestamp) > tolerance) return `timestamp is more than ${tolerance} s away from now (replay?)`;
  const expected = Buffer.from(signPayload(secret, timestamp, Buffer.isBuffer(rawBody) ? rawBody.toString('utf8') : rawBody));
  const actual = Buffer.from(headers.signature);
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) return 'signature does not match';
  return null;
}

import { configSection } from '@wiflow/core';
import { z } from 'zod';

/** The `webhooks` config section. */
export const WebhookConfigSchema = z
  .object({
    enabled: z.boolean().default(true).describe('Whether deliveries are sent (off: webhook.deliver counts and skips)'),
    maxAttempts: z.number().int().min(1).max(20).default(6).describe('Attempts per delivery, the first included'),
    baseDelayMs: z.number().int().min(1).max(3_600_000).default(1000).describe('Back-off before the 2nd attempt; doubles each attempt (with jitter)'),
    maxDelayMs: z.number().int().min(1).max(86_400_000).default(300_000).describe('Longest back-off between two attempts (also caps Retry-After)'),
    timeoutMs: z.number().int().min(100).max(120_000).default(10_000).describe('Per-attempt HTTP timeout'),
    rateLimit: z
      .object({
        events: z.number().int().min(1).max(10_000_000).default(10_000).describe('Deliveries per window per endpoint (spec: 10,000 per hour)'),
        windowSeconds: z.number().int().min(1).max(86_400).default(3600),
      })
      .prefault({}),
    queueLimit: z.number().int().min(1).max(1_000_000).default(10_000).describe('Deliveries waiting per endpoint (rate limit, concurrency) before the oldest is dropped'),
    concurrency: z.number().int().min(1).max(256).default(4).describe('Attempts in flight per endpoint'),
    logLimit: z.number().int().min(10).max(100_000).default(1000).describe('Delivery log entries kept per webhook'),
    maxWebhooks: z.number().int().min(1).max(10_000).default(100),
  })
  .prefault({});

/** Parsed `webhooks` section. */
export type WebhookConfig = z.output<typeof WebhookConfigSchema>;

/** The `webhooks` section by name and schema, for readers outside setup (`config.read(WebhookSection)` is typed). */
export const WebhookSection = configSection('webhooks', WebhookConfigSchema);

import { nanos } from '@nats-io/transport-node';
import { createLogger } from '@wiflow/core';
import { describe, expect, it } from 'vitest';
import { NatsConfig, NatsService } from './index.js';
import { NATS_SERVER, useNatsServer } from './nats-server.test-helper.js';

const logger = createLogger({ level: 'error' });

describe.skipIf(!NATS_SERVER)('NatsService streams (real nats-server)', () => {
  const services: NatsService[] = [];
  const nats = useNatsServer({
    cleanup: async () => {
      for (const s of services) await s.close();
    },
  });

  it('creates the streams with the configured limits, and the limits hold', async () => {
    const settings = NatsConfig.parse({ url: nats.server.url, retention: { csi: { maxAgeMs: 60_000, maxBytes: 8192 } } });
    const service = new NatsService(settings, logger);
    services.push(service);
    const { js, jsm } = await service.get();
    const csi = (await jsm.streams.info('WIFLOW_CSI')).config;
    expect(csi.max_age).toBe(nanos(60_000));
    expect(csi.max_bytes).toBe(8192);
    // The duplicate window cannot be longer than the age limit: shortened to it.
    expect(csi.duplicate_window).toBe(nanos(60_000));
    const pose = (await jsm.streams.info('WIFLOW_POSE')).config;
    expect(pose.max_age).toBe(nanos(24 * 3_600_000));
    expect(pose.max_bytes).toBe(1024 * 1024 * 1024);
    expect(pose.duplicate_window).toBe(nanos(120_000));
    // 40 messages of 1 kB into an 8 kB stream: the oldest are discarded.
    const payload = new Uint8Array(1000);
    for (let i = 0; i < 40; i++) await js.publish('csi.room.link', payload);
    const state = (await jsm.streams.info('WIFLOW_CSI')).state;
    expect(state.bytes).toBeLessThanOrEqual(8192);
    expect(state.messages).toBeLessThan(40);
    expect(state.last_seq).toBe(40);
  });

  it('a runtime with other limits applies them to the existing streams; no limit is 0', async () => {
    const service = new NatsService(NatsConfig.parse({ url: nats.server.url, retention: { alerts: { maxAgeMs: 0, maxBytes: 0 }, csi: { maxAgeMs: 120_000, maxBytes: 8192 } } }), logger);
    services.push(service);
    const { jsm } = await service.get();
    const alerts = (await jsm.streams.info('WIFLOW_ALERTS')).config;
    expect(alerts.max_age).toBe(0);
    expect(alerts.max_bytes).toBe(-1);
    expect((await jsm.streams.info('WIFLOW_CSI')).config.max_age).toBe(nanos(120_000));
  });
});

describe('NATS URLs with credentials', () => {
  it('sends the credentials a URL holds as nats.js options (it ignores them in the URL), and shows the URL without them', async () => {
    const { natsConnectOptions, redactNatsUrl } = await import('./service.js');
    expect(natsConnectOptions('nats://reader:p%40ss@10.0.0.1:4222')).toEqual({ servers: ['nats://10.0.0.1:4222'], user: 'reader', pass: 'p@ss' });
    expect(natsConnectOptions('nats://s3cr3t-token@a:4222, nats://b:4222')).toEqual({ servers: ['nats://a:4222', 'nats://b:4222'], token: 's3cr3t-token' });
    expect(natsConnectOptions('127.0.0.1:4222')).toEqual({ servers: ['127.0.0.1:4222'] });
    expect(redactNatsUrl('nats://reader:p%40ss@10.0.0.1:4222,nats://tok@b:1')).toBe('nats://***@10.0.0.1:4222,nats://***@b:1');
    expect(redactNatsUrl('nats://127.0.0.1:4222')).toBe('nats://127.0.0.1:4222');
  });
});

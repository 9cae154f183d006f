import { describe, expect, it } from 'vitest';
import { ClusterHeartbeat, resolveClusterSettings } from '../index.js';
import { NATS_SERVER, useNatsServer } from '../nats-server.test-helper.js';

if (!NATS_SERVER) console.warn('cluster heartbeat test skipped: nats-server is not installed (apt-get install nats-server; .ci/run installs it)');

/** Resolves once `hb` knows at least `n` members. */
function heard(hb: ClusterHeartbeat, n: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const check = () => {
      if (hb.members().length >= n) {
        off();
        resolve();
      }
    };
    const off = hb.onHeartbeat(check);
    check();
  });
}

describe.skipIf(!NATS_SERVER)('cluster heartbeats (real nats-server)', () => {
  const nats = useNatsServer();

  it('instances announce heartbeats; each sees the whole cluster, and a silent one is reported down', async () => {
    const [a, b] = await Promise.all([nats.server.connect(), nats.server.connect()]);
    let clock = 1_700_000_000_000;
    const now = () => clock;
    const api = new ClusterHeartbeat(a, () => ({ instanceId: 'api-1', role: 'api', pid: 1, host: 'h', components: { api: 'running' }, counters: { frames_per_second: 20 } }), { intervalMs: 60_000, now });
    const worker = new ClusterHeartbeat(b, () => ({ instanceId: 'worker-1', role: 'worker', pid: 2, host: 'h', components: { pipeline: 'running' }, counters: {} }), { intervalMs: 60_000, now });
    await api.start();
    await worker.start();
    await Promise.all([heard(api, 2), heard(worker, 2)]);
    expect(api.members().map((m) => [m.instanceId, m.role, m.status])).toEqual([['api-1', 'api', 'up'], ['worker-1', 'worker', 'up']]);
    expect(api.members()[1].components).toEqual({ pipeline: 'running' });
    // The worker stops announcing; 3 intervals later the API reports it down, while it still beats itself.
    worker.stop();
    clock += 3 * 60_000 + 1;
    // (wait for this very beat: answers to earlier beats may still be on the way)
    const fresh = new Promise<void>((resolve) => {
      const off = api.onHeartbeat(() => {
        if (api.members().find((m) => m.instanceId === 'api-1')?.at !== clock) return;
        off();
        resolve();
      });
    });
    api.beat();
    await fresh;
    expect(api.members().map((m) => [m.instanceId, m.status])).toEqual([['api-1', 'up'], ['worker-1', 'down']]);
    api.stop();
  }, 30_000);

  it('an instance that leaves gracefully is forgotten, not reported down', async () => {
    const [a, b] = await Promise.all([nats.server.connect(), nats.server.connect()]);
    const observer = new ClusterHeartbeat(a, () => ({ instanceId: 'observer', role: 'api', pid: 1, host: 'h', components: {}, counters: {} }), { intervalMs: 60_000 });
    const leaver = new ClusterHeartbeat(b, () => ({ instanceId: 'leaver', role: 'worker', pid: 2, host: 'h', components: {}, counters: {} }), { intervalMs: 60_000 });
    await observer.start();
    await leaver.start();
    await heard(observer, 2);
    const gone = new Promise<void>((resolve) => {
      const off = observer.onHeartbeat(() => {
        if (observer.members().some((m) => m.instanceId === 'leaver')) return;
        off();
        resolve();
      });
    });
    leaver.stop({ leave: true });
    await gone;
    expect(observer.members().map((m) => m.instanceId)).toEqual(['observer']);
    observer.stop();
  }, 30_000);
});

describe('cluster settings', () => {
  it('take the environment over the config file, and default the instance id', () => {
    const fromFile = resolveClusterSettings({ enabled: false, instanceId: 'file-id', heartbeatIntervalMs: 1000 }, {});
    expect(fromFile).toMatchObject({ enabled: false, instanceId: 'file-id', role: undefined, heartbeatIntervalMs: 1000, missedBeats: 3, storageWriter: true });
    const fromEnv = resolveClusterSettings({ enabled: false, instanceId: 'file-id' }, { WIFLOW_CLUSTER: 'true', WIFLOW_INSTANCE_ID: 'api-b', WIFLOW_CLUSTER_ROLE: 'api' });
    expect(fromEnv).toMatchObject({ enabled: true, instanceId: 'api-b', role: 'api' });
    expect(resolveClusterSettings(undefined, {}).instanceId).toMatch(/-\d+$/);
    expect(() => resolveClusterSettings({}, { WIFLOW_CLUSTER: 'maybe' })).toThrow(/WIFLOW_CLUSTER/);
    expect(() => resolveClusterSettings({ instanceId: 'has space' }, {})).toThrow();
  });
});

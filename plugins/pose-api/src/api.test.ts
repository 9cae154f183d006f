import { readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContractChecker } from './contract.test-support.js';
import { makeFrame, startTestServer, type TestServer } from './fixtures.test-support.js';

/** Every endpoint of spec section 4. */
const SPEC_ENDPOINTS: [string, string][] = [
  ['post', '/auth/token'], ['get', '/pose/latest'], ['get', '/pose/history'], ['post', '/pose/query'], ['get', '/pose/tracking/{track_id}'],
  ['post', '/pose/process'], ['get', '/system/status'], ['post', '/system/start'], ['post', '/system/stop'], ['post', '/system/restart'],
  ['get', '/config'], ['put', '/config'], ['get', '/config/schema'], ['get', '/analytics/healthcare'], ['get', '/analytics/retail'],
  ['get', '/analytics/security'], ['get', '/analytics/summary'], ['get', '/analytics/events'], ['get', '/analytics/occupancy'],
  ['get', '/health'], ['get', '/health/detailed'], ['get', '/metrics'],
];

const hourAgo = () => new Date(Date.now() - 3_600_000).toISOString();
const inAMinute = () => new Date(Date.now() + 60_000).toISOString();

for (const convention of ['A', 'B'] as const) {
  describe(`pose service API, convention ${convention}`, () => {
    let s: TestServer;
    let contract: ContractChecker;
    let viewer: string;
    let operator: string;
    let admin: string;
    const v1 = (p: string) => `/api/v1${p}`;
    const data = (res: { body: any }) => (convention === 'A' ? res.body : res.body.data);
    const call = async (method: 'get' | 'post' | 'put' | 'delete', template: string, options: { token?: string; path?: string; query?: Record<string, unknown>; body?: unknown; headers?: Record<string, string> } = {}) => {
      let req = s.http[method](v1(options.path ?? template));
      if (options.token) req = req.set('Authorization', `Bearer ${options.token}`);
      for (const [k, v] of Object.entries(options.headers ?? {})) req = req.set(k, v);
      if (options.query) req = req.query(options.query as Record<string, string>);
      const res = options.body === undefined ? await req : await req.send(options.body as object);
      return contract.check(res, method, template);
    };
    const expectError = (res: { body: any; status: number }, status: number, code: string) => {
      expect(res.status).toBe(status);
      expect(res.body.error.code).toBe(code);
      if (convention === 'A') {
        expect(typeof res.body.error.timestamp).toBe('string');
        expect(typeof res.body.error.request_id).toBe('string');
      } else {
        expect(res.body.success).toBe(false);
        expect(typeof res.body.request_id).toBe('string');
      }
      return res.body.error;
    };

    beforeAll(async () => {
      s = await startTestServer({ convention, alertEvery: 5, intervalMs: 20 });
      contract = new ContractChecker((await s.http.get('/api/v1/openapi.json')).body);
      viewer = await s.token('viewer');
      operator = await s.token('operator');
      admin = await s.token('admin');
    });
    afterAll(async () => {
      await s?.close();
    });

    it('serves an OpenAPI 3.1 document holding every spec endpoint', () => {
      expect(contract.doc.openapi).toBe('3.1.0');
      expect(contract.doc['x-wiflow-convention']).toBe(convention);
      for (const [method, p] of SPEC_ENDPOINTS) expect(contract.doc.paths[p]?.[method], `${method} ${p}`).toBeDefined();
    });

    it('first start created the admin with a random password shown once, never the default', async () => {
      expect(s.printed.filter((l) => l.includes(s.adminPassword))).toHaveLength(1);
      expect(s.adminPassword.length).toBeGreaterThanOrEqual(20);
      const key = statSync(path.join(s.dataDir, 'jwt.key'));
      expect(key.mode & 0o777).toBe(0o600);
    });

    it('POST /auth/token: password grant, refresh rotation, reuse revokes, wrong password 401', async () => {
      const bad = await call('post', '/auth/token', { body: { username: 'admin', password: 'wrong-password' } });
      expectError(bad, 401, 'AUTHENTICATION_ERROR');
      const ok = await call('post', '/auth/token', { body: { username: 'admin', password: s.adminPassword } });
      expect(ok.status).toBe(200);
      const grant = data(ok);
      expect(grant.token_type).toBe('bearer');
      expect(grant.expires_in).toBe(3600);
      expect(grant.access_token.split('.')).toHaveLength(3);
      const status = await call('get', '/system/status', { token: grant.access_token });
      expect(status.status).toBe(200);
      const refreshed = await call('post', '/auth/token', { body: { grant_type: 'refresh_token', refresh_token: grant.refresh_token } });
      expect(refreshed.status).toBe(200);
      expect(data(refreshed).refresh_token).not.toBe(grant.refresh_token);
      const reused = await call('post', '/auth/token', { body: { grant_type: 'refresh_token', refresh_token: grant.refresh_token } });
      expectError(reused, 401, 'AUTHENTICATION_ERROR');
      // Reuse revoked the whole family: the rotated token is dead too.
      const after = await call('post', '/auth/token', { body: { grant_type: 'refresh_token', refresh_token: data(refreshed).refresh_token } });
      expectError(after, 401, 'AUTHENTICATION_ERROR');
      const invalid = await call('post', '/auth/token', { body: { username: '' } });
      const error = expectError(invalid, 422, 'VALIDATION_ERROR');
      expect(error.details.field_errors.length).toBeGreaterThan(0);
    });

    it('401 on every protected endpoint without or with bad credentials; /health is open', async () => {
      for (const [method, p] of SPEC_ENDPOINTS) {
        if (p === '/auth/token' || p === '/health') continue;
        const concrete = p.replace('{track_id}', '100');
        const res = await call(method as 'get', p, { path: concrete, body: method === 'get' ? undefined : {} });
        expectError(res, 401, 'AUTHENTICATION_ERROR');
      }
      const forged = await call('get', '/system/status', { token: `${viewer.slice(0, -4)}AAAA` });
      expectError(forged, 401, 'AUTHENTICATION_ERROR');
      const badKey = await call('get', '/system/status', { headers: { 'X-API-Key': 'wf_not-a-key' } });
      expectError(badKey, 401, 'AUTHENTICATION_ERROR');
      const health = await call('get', '/health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({ status: 'healthy', version: expect.any(String), uptime: expect.any(Number) });
    });

    it('403 for roles below the endpoint: viewer on control and config, operator on config writes', async () => {
      for (const [method, p] of [['post', '/system/start'], ['post', '/system/stop'], ['post', '/system/restart'], ['put', '/config'], ['post', '/pose/process']] as const) {
        const res = await call(method, p, { token: viewer, body: {} });
        expectError(res, 403, 'AUTHORIZATION_ERROR');
      }
      expectError(await call('put', '/config', { token: operator, body: {} }), 403, 'AUTHORIZATION_ERROR');
    });

    it('503 from /pose/latest before the system runs; stop and restart answer 409 when stopped', async () => {
      expectError(await call('get', '/pose/latest', { token: viewer }), 503, 'SYSTEM_NOT_READY');
      expectError(await call('post', '/system/stop', { token: operator, body: {} }), 409, 'RESOURCE_CONFLICT');
      expectError(await call('post', '/system/restart', { token: operator }), 409, 'RESOURCE_CONFLICT');
      const status = data(await call('get', '/system/status', { token: viewer }));
      expect(status.status).toBe('stopped');
    });

    it('POST /system/start runs the pipeline; a second start is 409; latest returns pipeline output with provenance', async () => {
      const started = await call('post', '/system/start', { token: operator, body: { configuration: { domain: 'healthcare', environment_id: 'lab' } } });
      expect(started.status).toBe(202);
      const body = data(started);
      expect(body.status).toBe('starting');
      if (convention === 'A') expect(body.initialization_steps.map((st: { step: string }) => st.step)).toEqual(['load_flow', 'compile_flow', 'start_nodes']);
      else expect(body.session_id).toMatch(/[0-9a-f-]{36}/);
      await s.api.system.settled();
      expect(s.api.system.state).toBe('running');
      expectError(await call('post', '/system/start', { token: operator, body: {} }), 409, 'RESOURCE_CONFLICT');
      await new Promise<void>((resolve) => {
        const off = s.api.hub.subscribe({ frame: () => (off(), resolve()) });
      });
      const latest = await call('get', '/pose/latest', { token: viewer });
      expect(latest.status).toBe(200);
      const frame = data(latest);
      expect(frame.metadata.provenance).toBe('simulated');
      expect(frame.metadata.model_id).toBe('synthetic');
      expect(frame.persons).toHaveLength(2);
      if (convention === 'A') {
        expect(frame.persons[0].tracking_info.track_id).toBe('100');
        expect(frame.persons[0].dense_pose.body_parts[0].part_name).toBe('torso');
        expect(frame.metadata.router_count).toBe(3);
      } else {
        expect(frame.environment_id).toBe('lab');
        expect(frame.persons[0]).toMatchObject({ person_id: 0, track_id: 100 });
        expect(frame.metadata.processing_mode).toBe('realtime');
      }
      const filtered = data(await call('get', '/pose/latest', { token: viewer, query: { min_confidence: 0.5, include_keypoints: 'false' } }));
      expect(filtered.persons).toHaveLength(1);
      expect(filtered.persons[0].keypoints).toBeUndefined();
      expectError(await call('get', '/pose/latest', { token: viewer, query: { environment_id: 'nowhere' } }), 404, 'POSE_DATA_NOT_FOUND');
      const bad = await call('get', '/pose/latest', { token: viewer, query: { min_confidence: 2, include_keypoints: 'maybe' } });
      const error = expectError(bad, 422, 'VALIDATION_ERROR');
      const fields = error.details.field_errors.map((f: { field: string }) => f.field).sort();
      expect(fields).toEqual(['include_keypoints', 'min_confidence']);
      if (convention === 'A') expect(error.details.field_errors.find((f: any) => f.field === 'min_confidence').received_value).toBe('2');
      else expect(error.details.field_errors[0].reason).toEqual(expect.any(String));
    });

    it('GET /system/status reports real states, counters and process figures', async () => {
      const status = data(await call('get', '/system/status', { token: viewer }));
      expect(status.status).toBe('running');
      if (convention === 'A') {
        expect(status.components.csi_receiver.status).toBe('active');
        expect(status.components.neural_network.status).toBe('not_configured');
        expect(status.hardware.cpu_usage).toBeGreaterThanOrEqual(0);
        expect(status.hardware.memory_usage).toBeGreaterThan(0);
        expect(status.hardware.gpu_memory_usage).toBeNull();
        expect(status.counters.frames_published).toBeGreaterThan(0);
        expect(status.components.tracking.active_tracks).toBe(2);
      } else {
        expect(status.components.csi_processor.status).toBe('healthy');
        expect(status.components.database.status).toBe('healthy');
        expect(status.performance.frames_processed).toBeGreaterThan(0);
        expect(status.performance.average_fps).toBeGreaterThan(0);
        expect(status.started_at).toEqual(expect.any(String));
      }
      // The first server on its data directory holds the stable job-runner id.
      expect(status.job_runner).toEqual({ runner_id: readFileSync(path.join(s.dataDir, 'runner-id'), 'utf8').trim(), holds_data_directory: true, held_by: null });
    });

    it('GET /system/status names the process holding the data directory when this server started beside it', async () => {
      // A second server on the same data directory while the first runs (as one started beside a long `wiflow run`).
      const beside = await startTestServer({ convention, dataDir: s.dataDir, alertEvery: 5, intervalMs: 20 });
      try {
        const res = await beside.http.get('/api/v1/system/status').set('Authorization', `Bearer ${await beside.token('viewer')}`).expect(200);
        contract.check(res, 'get', '/system/status');
        const body = data(res);
        expect(body.job_runner).toMatchObject({ holds_data_directory: false, held_by: { pid: process.pid, host: hostname(), started_at: expect.any(String) } });
        expect(body.job_runner.runner_id).not.toBe(readFileSync(path.join(s.dataDir, 'runner-id'), 'utf8').trim());
      } finally {
        // Not close(): that removes the data directory, which the first server still uses.
        await beside.runtime.stop(5000);
      }
    });

    it('GET /pose/history: convention parameters, bounds, every bad field, POSE_DATA_NOT_FOUND ranges', async () => {
      // The running pipeline keeps publishing: wait until there is more than one page of track 100.
      for (let tries = 0; tries < 100; tries++) {
        await s.api.hub.flush();
        await s.runtime.storage.flush();
        const stored = await s.runtime.storage.poses.findRecords({ trackId: 100 }, { page: 1, perPage: 1 });
        if (stored.total > 8) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      if (convention === 'A') {
        const res = await call('get', '/pose/history', { token: viewer, query: { limit: 3 } });
        const body = data(res);
        expect(body.poses).toHaveLength(3);
        expect(body.pagination).toMatchObject({ returned_count: 3, has_more: true });
        const next = data(await call('get', '/pose/history', { token: viewer, query: { limit: 3, cursor: body.pagination.next_cursor } }));
        expect(next.poses[0].frame_id).toBeLessThan(body.poses[2].frame_id);
        const bad = await call('get', '/pose/history', { token: viewer, query: { limit: 1001, confidence_threshold: -1, start_time: 'yesterday' } });
        expect(expectError(bad, 422, 'VALIDATION_ERROR').details.field_errors.map((f: any) => f.field).sort()).toEqual(['confidence_threshold', 'limit', 'start_time']);
      } else {
        const missing = await call('get', '/pose/history', { token: viewer });
        expect(expectError(missing, 422, 'VALIDATION_ERROR').details.field_errors.map((f: any) => f.field).sort()).toEqual(['end_time', 'start_time']);
        const res = await call('get', '/pose/history', { token: viewer, query: { start_time: hourAgo(), end_time: inAMinute(), per_page: 4, track_id: 100 } });
        expect(res.body.data).toHaveLength(4);
        expect(res.body.data.every((r: any) => r.track_id === 100)).toBe(true);
        expect(res.body.pagination).toMatchObject({ page: 1, per_page: 4, has_prev: false, has_next: true });
        const bad = await call('get', '/pose/history', { token: viewer, query: { start_time: hourAgo(), end_time: inAMinute(), per_page: 5000, page: 0 } });
        expect(expectError(bad, 422, 'VALIDATION_ERROR').details.field_errors.map((f: any) => f.field).sort()).toEqual(['page', 'per_page']);
      }
      const old = await call('get', '/pose/history', { token: viewer, query: { start_time: '2020-01-01T00:00:00Z', end_time: '2020-01-02T00:00:00Z' } });
      const error = expectError(old, 404, 'POSE_DATA_NOT_FOUND');
      expect(error.details.requested_range).toEqual({ start: '2020-01-01T00:00:00.000Z', end: '2020-01-02T00:00:00.000Z' });
      expect(error.details.available_range.start).toEqual(expect.any(String));
    });

    it('POST /pose/query aggregates stored frames; bad bodies list every field; non-JSON is 400', async () => {
      const res = await call('post', '/pose/query', {
        token: viewer,
        body: { query: { time_range: { start: hourAgo(), end: inAMinute() }, filters: { confidence: { min: 0.5 } }, aggregation: { type: 'hourly_summary', metrics: ['person_count', 'avg_confidence'] } } },
      });
      const body = data(res);
      expect(body.results.length).toBeGreaterThan(0);
      expect(body.results[0].person_count).toBe(1);
      expect(body.results[0].avg_confidence).toBeCloseTo(0.9);
      expect(body.query_metadata.total_records_scanned).toBeGreaterThan(0);
      expect(body.query_metadata.cache_hit).toBe(false);
      const bad = await call('post', '/pose/query', { token: viewer, body: { query: { time_range: { start: 'x' }, aggregation: { type: 'yearly' } } } });
      expect(expectError(bad, 422, 'VALIDATION_ERROR').details.field_errors.map((f: any) => f.field).sort()).toEqual(['query.aggregation.type', 'query.time_range.end', 'query.time_range.start']);
      const malformed = await s.http.post(v1('/pose/query')).set('Authorization', `Bearer ${viewer}`).set('Content-Type', 'application/json').send('{"query":');
      contract.check(malformed, 'post', '/pose/query');
      expectError(malformed, 400, 'VALIDATION_ERROR');
    });

    it('GET /pose/tracking/{track_id}: the track with trajectory, 404 for unknown, 422 for a bad id', async () => {
      const res = await call('get', '/pose/tracking/{track_id}', { token: viewer, path: '/pose/tracking/100', query: { include_trajectory: 'true' } });
      const track = data(res);
      expect(track.track_id).toBe(100);
      expect(track.total_frames).toBeGreaterThan(0);
      expect(track.trajectory.length).toBeGreaterThan(0);
      expect(track.status).toBe('active');
      expectError(await call('get', '/pose/tracking/{track_id}', { token: viewer, path: '/pose/tracking/999' }), 404, 'RESOURCE_NOT_FOUND');
      expectError(await call('get', '/pose/tracking/{track_id}', { token: viewer, path: '/pose/tracking/abc' }), 422, 'VALIDATION_ERROR');
    });

    it('POST /pose/process: 422 on bad CSI, 503 MODEL_ERROR naming the node types that are not installed', async () => {
      const bad = await call('post', '/pose/process', { token: operator, body: { csi_data: { timestamp: 'now', antenna_data: [] } } });
      expect(expectError(bad, 422, 'VALIDATION_ERROR').details.field_errors.map((f: any) => f.field).sort()).toEqual(['csi_data.antenna_data', 'csi_data.timestamp']);
      const csi = { timestamp: new Date().toISOString(), antenna_data: [[{ real: 1, imag: 0 }, { real: 0.5, imag: 0.5 }]], metadata: { router_id: 'r1', sampling_rate: 100, signal_strength: -40 } };
      const res = await call('post', '/pose/process', { token: operator, body: { csi_data: csi, processing_options: { enable_tracking: true } } });
      const error = expectError(res, 503, 'MODEL_ERROR');
      expect(error.message).toMatch(/pose\.locate, tracker\.track not installed/);
      s.runtime.config.update({ api: { processing: { chain: ['fixture.csi-pose'], nodeConfig: { 'fixture.csi-pose': { every: 2 } } } } });
      try {
        const packets = Array.from({ length: 4 }, (_, i) => ({ ...csi, timestamp: new Date(Date.now() + i * 10).toISOString(), antenna_data: [csi.antenna_data[0], csi.antenna_data[0], csi.antenna_data[0]] }));
        const ok = await call('post', '/pose/process', { token: operator, body: { csi_data: packets, processing_options: { max_persons: 2, confidence_threshold: 0.1 } } });
        expect(ok.status).toBe(200);
        const result = data(ok);
        expect(result).toMatchObject({ status: 'completed', node_types: ['fixture.csi-pose'], processing_id: expect.any(String) });
        expect(result.poses).toHaveLength(2);
        expect(result.poses[0].persons).toHaveLength(2);
        expect(result.poses[0].metadata.provenance).toBe('replay');
        const ragged = await call('post', '/pose/process', { token: operator, body: { csi_data: { ...csi, antenna_data: [[{ real: 1, imag: 0 }], [{ real: 1, imag: 0 }, { real: 1, imag: 1 }]] } } });
        expect(expectError(ragged, 422, 'VALIDATION_ERROR').details.field_errors[0].field).toBe('csi_data[0].antenna_data[1]');
        s.runtime.config.update({ api: { processing: { nodeConfig: { 'fixture.csi-pose': { every: -1 } } } } });
        expect(expectError(await call('post', '/pose/process', { token: operator, body: { csi_data: csi } }), 503, 'MODEL_ERROR').message).toMatch(/misconfigured/);
      } finally {
        s.runtime.config.update({ api: { processing: { chain: ['pose.locate'], nodeConfig: {} } } });
      }
    });

    it('GET/PUT /config and /config/schema: dotted change lists, restart flag, validation, schema from the same zod schema', async () => {
      const config = data(await call('get', '/config', { token: viewer }));
      expect(config.domain).toBe('healthcare');
      if (convention === 'A') {
        expect(config.environment.id).toBe('lab');
        const put = data(await call('put', '/config', { token: admin, body: { detection: { max_persons: 4, tracking_enabled: false }, streaming: { mqtt_enabled: false } } }));
        expect(put.status).toBe('updated');
        expect(put.changes_applied.sort()).toEqual(['detection.max_persons', 'detection.tracking_enabled', 'streaming.mqtt_enabled']);
        expect(put.validation_warnings).toEqual([]);
        expect(put.restart_required).toBe(false);
        const again = data(await call('put', '/config', { token: admin, body: { streaming: { mqtt_enabled: true } } }));
        expect(again.changes_applied).toEqual(['streaming.mqtt_enabled']);
        expect(again.validation_warnings).toContain('streaming.mqtt_enabled is on but no MQTT plugin is installed');
        const bad = await call('put', '/config', { token: admin, body: { detection: { confidence_threshold: 3, bogus: 1 }, domain: 'space' } });
        expect(expectError(bad, 422, 'VALIDATION_ERROR').details.field_errors.map((f: any) => f.field).sort()).toEqual(['detection.bogus', 'detection.confidence_threshold', 'domain']);
      } else {
        expect(config.environment_id).toBe('lab');
        const put = data(await call('put', '/config', { token: admin, body: { neural_network: { batch_size: 16 }, privacy: { data_retention_days: 7 }, analytics: { alert_thresholds: { inactivity_timeout: 45 } } } }));
        expect(put.updated_fields.sort()).toEqual(['analytics.alert_thresholds.inactivity_timeout', 'neural_network.batch_size', 'privacy.data_retention_days']);
        expect(put.requires_restart).toBe(true);
        expect(put.configuration.privacy.data_retention_days).toBe(7);
        expect(s.runtime.storage.privacy().dataRetentionDays).toBe(7);
        const bad = await call('put', '/config', { token: admin, body: { neural_network: { batch_size: 0 } } });
        expect(expectError(bad, 422, 'VALIDATION_ERROR').details.field_errors[0]).toMatchObject({ field: 'neural_network.batch_size', reason: expect.any(String) });
      }
      const schema = data(await call('get', '/config/schema', { token: viewer }));
      expect(schema.schema.type).toBe('object');
      expect(schema.schema.properties.detection.properties.confidence_threshold).toMatchObject({ minimum: 0, maximum: 1 });
      expect(schema.defaults.detection.confidence_threshold).toBe(0.5);
    });

    it('analytics endpoints answer from stored data, validate their parameters', async () => {
      await s.api.hub.flush();
      await s.runtime.storage.flush();
      await s.runtime.storage.events.append([
        { eventId: `fall-${convention}`, type: 'fall_detection', severity: 'high', timestamp: Date.now() - 1000, environmentId: 'lab', personId: 0, trackId: 100, confidence: 0.9, location: { x: 1, y: 1 }, metadata: { response_time_seconds: 12 }, actionsTaken: ['alert_sent'], source: 'test' },
      ]);
      await s.runtime.storage.flush();
      const hc = data(await call('get', '/analytics/healthcare', { token: viewer, query: { period: 'hour', metrics: 'fall_events,activity_summary' } }));
      expect(hc.metrics.fall_events.count).toBe(1);
      expect(hc.metrics.fall_events.events[0].response_time_seconds).toBe(12);
      expect(hc.metrics.activity_summary.walking_minutes).toBeGreaterThan(0);
      expect(hc.metrics.mobility_score).toBeUndefined();
      expectError(await call('get', '/analytics/healthcare', { token: viewer, query: { period: 'year', metrics: 'everything' } }), 422, 'VALIDATION_ERROR');
      // A store visit counts once it has lasted min_visit_seconds (10 s): wait until the synthetic pipeline's two people have stayed that long.
      let retail = data(await call('get', '/analytics/retail', { token: viewer, query: { period: 'hour' } }));
      for (let tries = 0; tries < 300 && retail.metrics.traffic.total_visitors < 2; tries++) {
        await new Promise((r) => setTimeout(r, 100));
        await s.api.hub.flush();
        await s.runtime.storage.flush();
        retail = data(await call('get', '/analytics/retail', { token: viewer, query: { period: 'hour' } }));
      }
      expect(retail.metrics.traffic.total_visitors).toBe(2);
      expect(retail.metrics.heat_map.high_traffic_areas[0].intensity).toBe(1);
      const security = data(await call('get', '/analytics/security', { token: viewer, query: { period: 'day' } }));
      expect(security.metrics.crowd_analysis.max_occupancy).toBe(2);
      const summary = data(await call('get', '/analytics/summary', { token: viewer, query: { start_time: hourAgo(), end_time: inAMinute() } }));
      expect(summary.detection_stats.total_detections).toBeGreaterThan(0);
      expect(summary.activity_stats.fall_detections).toBe(1);
      expectError(await call('get', '/analytics/summary', { token: viewer, query: { start_time: inAMinute(), end_time: hourAgo() } }), 422, 'VALIDATION_ERROR');
      const events = await call('get', '/analytics/events', { token: viewer, query: { event_type: 'fall', severity: 'high' } });
      const list = convention === 'A' ? events.body.events : events.body.data;
      expect(list[0]).toMatchObject({ event_id: `fall-${convention}`, type: 'fall_detection', location: { x: 1, y: 1 } });
      const alerts = await call('get', '/analytics/events', { token: viewer, query: { event_type: 'alert' } });
      expect((convention === 'A' ? alerts.body.events : alerts.body.data).length).toBeGreaterThan(0);
      const occupancy = data(await call('get', '/analytics/occupancy', { token: viewer, query: { start_time: hourAgo(), end_time: inAMinute(), interval: '5min' } }));
      expect(occupancy.summary.peak_occupancy).toBe(2);
      expect(occupancy.distribution['2_persons']).toBe(100);
      expectError(await call('get', '/analytics/occupancy', { token: viewer, query: { start_time: hourAgo(), end_time: inAMinute(), interval: '2min' } }), 422, 'VALIDATION_ERROR');
    });

    it('GET /health/detailed and /metrics report process figures, null where there is no source', async () => {
      const detailed = data(await call('get', '/health/detailed', { token: viewer }));
      expect(detailed.components.database.status).toBe('healthy');
      expect(detailed.components.redis.status).toBe('not_configured');
      expect(detailed.metrics.network_io.bytes_in).toBeGreaterThan(0);
      const metrics = data(await call('get', '/metrics', { token: viewer }));
      expect(metrics.current.performance.frames_per_second).toBeGreaterThan(0);
      expect(metrics.current.resources.gpu_usage).toBeNull();
      expect(metrics.current.business.active_persons).toBe(2);
      const perf = data(await call('get', '/metrics', { token: viewer, query: { metric_type: 'performance' } }));
      expect(perf.current.resources).toBeUndefined();
      expectError(await call('get', '/metrics', { token: viewer, query: { metric_type: 'gpu' } }), 422, 'VALIDATION_ERROR');
    });

    it('API keys: created once in clear, stored hashed, authenticate X-API-Key with capped roles, revocable', async () => {
      const created = await call('post', '/auth/api-keys', { token: operator, body: { name: 'svc', roles: ['viewer'] } });
      expect(created.status).toBe(201);
      const key = data(created).key as string;
      const status = await call('get', '/system/status', { headers: { 'X-API-Key': key } });
      expect(status.status).toBe(200);
      expectError(await call('post', '/system/stop', { headers: { 'X-API-Key': key }, body: {} }), 403, 'AUTHORIZATION_ERROR');
      expectError(await call('post', '/auth/api-keys', { token: viewer, body: { name: 'escalate', roles: ['admin'] } }), 403, 'AUTHORIZATION_ERROR');
      const listed = await call('get', '/auth/api-keys', { token: operator });
      expect(JSON.stringify(listed.body)).not.toContain(key);
      await call('delete', '/auth/api-keys/{key_id}', { token: operator, path: `/auth/api-keys/${data(created).id}` });
      expectError(await call('get', '/system/status', { headers: { 'X-API-Key': key } }), 401, 'AUTHENTICATION_ERROR');
    });

    it('429 RATE_LIMIT_EXCEEDED with the convention details once a category is spent; headers on every answer', async () => {
      s.runtime.config.update({ api: { rateLimits: { analytics: { limit: 2, windowSeconds: 60 } } } });
      await startOfMinuteWindow();
      const query = { period: 'hour' };
      const first = await call('get', '/analytics/security', { token: admin, query });
      expect(first.headers['x-ratelimit-limit']).toBe('2');
      expect(first.headers['x-ratelimit-window']).toBe('60');
      await call('get', '/analytics/security', { token: admin, query });
      const limited = await call('get', '/analytics/security', { token: admin, query });
      const error = expectError(limited, 429, 'RATE_LIMIT_EXCEEDED');
      expect(limited.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      if (convention === 'A') expect(error.details).toMatchObject({ limit: 2, window_seconds: 60, reset_time: expect.any(String) });
      else expect(error.details).toMatchObject({ limit: 2, window: 60, reset_at: expect.any(String) });
      // Other categories and other callers are counted apart.
      expect((await call('get', '/analytics/security', { token: operator, query })).status).toBe(200);
      s.runtime.config.update({ api: { rateLimits: { analytics: { limit: 500, windowSeconds: 3600 } } } });
    });

    it('the authentication category allows 10 requests per minute per address', async () => {
      const limits = s.api.apiConfig().rateLimits.auth;
      expect(limits).toEqual({ limit: 10, windowSeconds: 60 });
      await startOfMinuteWindow();
      let last;
      for (let i = 0; i < 11; i++) last = await call('post', '/auth/token', { body: { username: 'nobody', password: 'wrong-password' } });
      expectError(last!, 429, 'RATE_LIMIT_EXCEEDED');
    });

    it('restart gives a new session; stop drains, stops the data and /pose/latest is 503 again', async () => {
      const restarted = await call('post', '/system/restart', { token: operator });
      expect(restarted.status).toBe(202);
      const r = data(restarted);
      expect(r.previous_session_id).not.toBe(r.new_session_id);
      await s.api.system.settled();
      expect(s.api.system.state).toBe('running');
      expect(s.api.system.sessionId).toBe(r.new_session_id);
      const stopped = await call('post', '/system/stop', { token: operator, body: { force: false, save_state: true } });
      expect(stopped.status).toBe(202);
      if (convention === 'A') expect(data(stopped).shutdown_steps.map((st: { step: string }) => st.step)).toEqual(['stop_sources', 'drain_queues', 'flush_storage']);
      else expect(data(stopped).shutdown_initiated).toEqual(expect.any(String));
      await s.api.system.settled();
      const published = s.api.hub.counters.framesPublished;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(s.api.hub.counters.framesPublished).toBe(published);
      expectError(await call('get', '/pose/latest', { token: viewer }), 503, 'SYSTEM_NOT_READY');
    });

    it('every answer of this suite validated against the OpenAPI document', () => {
      expect(contract.seen.size).toBeGreaterThan(60);
    });
  });
}

/** Rate-limit windows are fixed clock minutes: wait out the last 10 s of one so a test's requests all fall in one window. */
async function startOfMinuteWindow(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 10_000) await new Promise((resolve) => setTimeout(resolve, left + 50));
}

describe('configuration errors', () => {
  it('start without a configured flow answers 503 with the reason; the admin comes from the environment', async () => {
    const s = await startTestServer({ config: { api: { pipeline: { flow: null } } }, env: { WIFLOW_ADMIN_USER: 'root', WIFLOW_ADMIN_PASSWORD: 'a-long-admin-password' } });
    try {
      expect(s.printed.join('\n')).not.toContain('a-long-admin-password');
      const login = await s.http.post('/api/v1/auth/token').send({ username: 'root', password: 'a-long-admin-password' });
      expect(login.status).toBe(200);
      const res = await s.http.post('/api/v1/system/start').set('Authorization', `Bearer ${login.body.access_token}`).send({});
      expect(res.status).toBe(503);
      expect(res.body.error.code).toBe('SYSTEM_NOT_READY');
      expect(res.body.error.message).toMatch(/api\.pipeline\.flow/);
      void makeFrame;
    } finally {
      await s.close();
    }
  });
});

// The product end to end: the README's server (built CLI, demo configuration) on a free port:
// poses from the default pipeline, an alert, the WebSocket stream, an MCP tool call.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { useDemoServer } from './support/demo-server.js';

const PASSWORD = 'e2e-admin-password-42';

describe('wiflow serve with the demo configuration', () => {
  const demo = useDemoServer(PASSWORD);

  it('prints the admin credentials once, and the studio is served at /', async () => {
    expect(demo.server.stderr()).toContain('created the first user "admin"');
    const page = await fetch(`${demo.server.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
  });

  it('returns poses of the default estimator (the empty-room locator) from the default pipeline within 30 seconds', async () => {
    const deadline = Date.now() + 30_000;
    let frame: { frame_id?: number; metadata?: Record<string, unknown>; persons?: unknown[] } | undefined;
    while (Date.now() < deadline) {
      const response = await fetch(`${demo.server.url}/api/v1/pose/latest`, { headers: demo.auth });
      if (response.status === 200) {
        const body = (await response.json()) as { data?: typeof frame } & NonNullable<typeof frame>;
        frame = body.data ?? body;
        break;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(frame, 'no pose frame within 30 s').toBeDefined();
    expect(frame!.metadata).toMatchObject({ model_id: expect.stringMatching(/^wiflow-locate-/), provenance: 'simulated' });
    expect(String(frame!.metadata!.model_hash)).toMatch(/^[0-9a-f]{64}$/);
    expect(Array.isArray(frame!.persons)).toBe(true);
  });

  it('shows the default pipeline as the server\'s running deployment of the "Default pipeline" flow, and refuses a second copy', async () => {
    const flows = (await (await fetch(`${demo.server.url}/api/v1/flows/?header_flows=true`, { headers: demo.auth })).json()) as { id: string; name: string }[];
    const example = flows.find((f) => f.name === 'Default pipeline');
    expect(example, flows.map((f) => f.name).join(', ')).toBeDefined();
    const listed = (await (await fetch(`${demo.server.url}/api/v1/studio/deployments?flow_id=${example!.id}`, { headers: demo.auth })).json()) as Record<string, unknown>[];
    expect(listed).toEqual([expect.objectContaining({ id: 'pose-api:system', flow_id: example!.id, flow_name: 'Default pipeline', status: 'running', origin: 'server', environment_id: 'home' })]);
    const again = await fetch(`${demo.server.url}/api/v1/studio/deployments`, { method: 'POST', headers: { ...demo.auth, 'content-type': 'application/json' }, body: JSON.stringify({ flow_id: example!.id }) });
    expect(again.status).toBe(409);
    expect(((await again.json()) as { detail: string }).detail).toContain('deployment pose-api:system ("Default pipeline", started by the server) is running');
  });

  it('streams pose updates and a fall alert over /ws/pose', async () => {
    const ws = new WebSocket(`${demo.server.url.replace('http', 'ws')}/ws/pose?token=${encodeURIComponent(demo.auth.Authorization.slice(7))}`);
    const messages: { type: string; [k: string]: unknown }[] = [];
    ws.on('message', (m) => messages.push(JSON.parse(String(m)) as (typeof messages)[number]));
    await new Promise((resolve, reject) => (ws.once('open', resolve), ws.once('error', reject)));
    const waitFor = async (predicate: (m: (typeof messages)[number]) => boolean, ms: number) => {
      const deadline = Date.now() + ms;
      while (Date.now() < deadline) {
        const found = messages.find(predicate);
        if (found) return found;
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`not received within ${ms} ms; got ${[...new Set(messages.map((m) => m.type))].join(', ')}`);
    };
    await waitFor((m) => m.type === 'connection_established', 5000);
    ws.send(JSON.stringify({ type: 'subscribe', channel: 'pose_updates', filters: { include_keypoints: true } }));
    ws.send(JSON.stringify({ type: 'subscribe', channel: 'alerts', filters: {} }));
    await waitFor((m) => m.type === 'subscription_confirmed' && m.channel === 'alerts', 5000);
    const update = await waitFor((m) => m.type === 'pose_update', 20_000);
    expect((update.data as { metadata: { model_id: string } }).metadata.model_id).toMatch(/^wiflow-locate-/);

    // The ground-truth healthcare example (loaded into the default project on first start) raises the scripted fall.
    const flows = (await (await fetch(`${demo.server.url}/api/v1/flows/?header_flows=true`, { headers: demo.auth })).json()) as { id: string; name: string }[];
    const example = flows.find((f) => f.name === 'Healthcare on ground truth');
    expect(example, flows.map((f) => f.name).join(', ')).toBeDefined();
    const deployed = await fetch(`${demo.server.url}/api/v1/studio/deployments`, { method: 'POST', headers: { ...demo.auth, 'content-type': 'application/json' }, body: JSON.stringify({ flow_id: example!.id }) });
    expect(deployed.status).toBe(201);
    const alert = await waitFor((m) => m.type === 'alert' && String(m.alert_type).includes('fall'), 60_000);
    expect(alert).toMatchObject({ severity: expect.any(String), alert_id: expect.any(String) });
    ws.close();
  });

  it('answers an MCP tool call (occupancy_now) on the default project', async () => {
    const projects = (await (await fetch(`${demo.server.url}/api/v1/projects/`, { headers: demo.auth })).json()) as { id: string; name: string }[];
    const flows = (await (await fetch(`${demo.server.url}/api/v1/flows/?header_flows=true`, { headers: demo.auth })).json()) as { name: string; folder_id: string }[];
    const project = projects.find((p) => flows.some((f) => f.name === 'occupancy_now' && f.folder_id === p.id));
    expect(project).toBeDefined();
    const client = new Client({ name: 'e2e', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${demo.server.url}/api/v1/mcp/project/${project!.id}/streamable`), { requestInit: { headers: demo.auth } }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['occupancy_now', 'estimate_poses_from_csi']));
    const result = await client.callTool({ name: 'occupancy_now', arguments: { environment_id: 'home' } });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const answer = (result.structuredContent as { occupancy: { environment_id: string; as_of: string | null; source: { model_id: string } | null; zones: { zone_id: string }[] } }).occupancy;
    expect(answer.environment_id).toBe('home');
    // The zones the default pipeline's retail and security analytics define for the room.
    expect(answer.zones.map((zone) => zone.zone_id)).toEqual(expect.arrayContaining(['sofa', 'kitchen-door']));
    expect(answer.as_of).not.toBeNull();
    expect(answer.source?.model_id).toMatch(/^wiflow-locate-/);
    await client.close();
  });
});

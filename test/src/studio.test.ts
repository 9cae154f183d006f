// The studio in a real browser (Debian's Chromium through playwright-core) against the built
// studio served by the real `wiflow serve`: log in, build a flow by dragging and connecting
// nodes, see a compiler error on a node and fix it, run it, publish it as an MCP tool, deploy
// the pose pipeline and see skeletons drawn, and open a 300-node flow (load and frame time).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactsDir, CHROMIUM, CHROMIUM_ARGS, hasChromium } from './support/browser.js';
import { ROOT, startServer, token, type ServerHandle } from './support/server.js';

const PASSWORD = 'studio-test-password-1';
const STUDIO_BUILT = existsSync(path.join(ROOT, 'studio/web/dist/app/index.html'));
const SHIPPED_MODEL = path.join(ROOT, 'plugins/pose-tfjs/models/wiflow-pose-v1');
const hasShippedModel = existsSync(path.join(SHIPPED_MODEL, 'model.json')) && existsSync(path.join(SHIPPED_MODEL, 'wiflow-model.json'));

interface Problem {
  code: string;
  message: string;
  nodeId?: string;
}

/** Centre of an element in page coordinates. */
async function centreOf(page: Page, selector: string): Promise<{ x: number; y: number }> {
  const box = await page.locator(selector).boundingBox();
  if (!box) throw new Error(`${selector} is not visible`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** Drag from one handle to another with the mouse, as a user connects two ports. */
async function connect(page: Page, from: string, to: string): Promise<void> {
  const a = await centreOf(page, from);
  const b = await centreOf(page, to);
  await page.mouse.move(a.x, a.y);
  await page.mouse.down();
  await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 5 });
  await page.mouse.move(b.x, b.y, { steps: 5 });
  await page.mouse.up();
}

/** One JSON-RPC call on a Streamable HTTP MCP endpoint (JSON or SSE answers). */
async function mcpCall(url: string, method: string, params: unknown, session: string | null, id: number | null): Promise<{ session: string | null; result: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(session ? { 'mcp-session-id': session } : {}), 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', method, params, ...(id === null ? {} : { id }) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`MCP ${method}: ${response.status} ${text}`);
  const next = response.headers.get('mcp-session-id') ?? session;
  if (id === null) return { session: next, result: null };
  const payload = response.headers.get('content-type')?.includes('text/event-stream')
    ? text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)) as { id?: number; result?: unknown; error?: unknown }).find((m) => m.id === id)
    : (JSON.parse(text) as { result?: unknown; error?: unknown });
  if (!payload || payload.error) throw new Error(`MCP ${method}: ${JSON.stringify(payload?.error ?? text)}`);
  return { session: next, result: payload.result };
}

/** A flow of `chains` × `length` nodes: a simulator source followed by Hampel filters, laid out in a grid. */
function bigFlow(chains: number, length: number) {
  const nodes = [];
  const edges = [];
  for (let c = 0; c < chains; c++) {
    for (let i = 0; i < length; i++) {
      const id = `n${c}_${i}`;
      nodes.push({ id, type: 'wiflow', position: { x: i * 260, y: c * 140 }, data: { nodeType: i === 0 ? 'sim.source' : 'csi.hampel', config: i === 0 ? { randomSeed: c + 1 } : {} } });
      if (i > 0) edges.push({ id: `e${c}_${i}`, source: `n${c}_${i - 1}`, sourceHandle: 'frames', target: id, targetHandle: 'frames' });
    }
  }
  return { nodes, edges };
}

/** sim.source → csi.signal-chain → pose.estimate → tracker.track → pose.publish in a room of the shipped model's test split. */
async function posePipeline() {
  const pose = (await import('@wiflow/plugin-pose-tfjs')) as typeof import('@wiflow/plugin-pose-tfjs');
  const sim = (await import('@wiflow/plugin-sim')) as typeof import('@wiflow/plugin-sim');
  const spec = JSON.parse(readFileSync(path.join(SHIPPED_MODEL, 'wiflow-model.json'), 'utf8')) as { training: { dataset: unknown } };
  const recipe = pose.DatasetRecipeSchema.parse(spec.training.dataset);
  const plan = sim.planDataset({ rooms: recipe.rooms, secondsPerSession: recipe.secondsPerSession, sessionsPerRoom: recipe.sessionsPerRoom, seed: recipe.seed, ranges: recipe.ranges as never });
  const session = plan.sessions.find((s) => s.split === 'test' && s.scenario.people.length >= 2) ?? plan.sessions.find((s) => s.split === 'test')!;
  const environment = pose.environmentFromScenario(session.scenario);
  const at = (i: number) => ({ x: i * 255, y: (i % 2) * 70 });
  return {
    nodes: [
      { id: 'sim', type: 'wiflow', position: at(0), data: { nodeType: 'sim.source', config: { scenario: session.scenario, realtime: true, loop: true } } },
      { id: 'chain', type: 'wiflow', position: at(1), data: { nodeType: 'csi.signal-chain', config: { ...recipe.signalChain, windowLength: recipe.windowFrames, hop: recipe.hopFrames, environmentId: environment.id } } },
      { id: 'pose', type: 'wiflow', position: at(2), data: { nodeType: 'pose.estimate', config: { environments: [environment], densePose: 'none' } } },
      { id: 'tracker', type: 'wiflow', position: at(3), data: { nodeType: 'tracker.track', config: {} } },
      { id: 'publish', type: 'wiflow', position: at(4), data: { nodeType: 'pose.publish', config: {} } },
    ],
    edges: [
      { id: 'e1', source: 'sim', sourceHandle: 'frames', target: 'chain', targetHandle: 'frames' },
      { id: 'e2', source: 'chain', sourceHandle: 'windows', target: 'pose', targetHandle: 'windows' },
      { id: 'e3', source: 'pose', sourceHandle: 'poses', target: 'tracker', targetHandle: 'poses' },
      { id: 'e4', source: 'tracker', sourceHandle: 'poses', target: 'publish', targetHandle: 'poses' },
    ],
  };
}

describe.skipIf(!hasChromium)('studio in Chromium against wiflow serve', () => {
  let server: ServerHandle;
  let browser: Browser;
  let page: Page;
  let bearer: string;
  let projectId: string;
  const shots = artifactsDir('studio');
  const pageErrors: string[] = [];
  const api = async <T>(pathname: string, init: RequestInit & { json?: unknown } = {}): Promise<T> => {
    const response = await fetch(`${server.url}${pathname}`, {
      ...init,
      headers: { authorization: `Bearer ${bearer}`, ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}), ...(init.headers as Record<string, string>) },
      body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${pathname}: ${response.status} ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  };

  /** Open a studio route, logging in first when the page asks (a test run on its own with -t). */
  async function openStudio(hash: string, ready: string): Promise<void> {
    await page.goto(`${server.url}/#/${hash}`);
    await page.locator(`[data-testid=login-form], [data-testid="${ready}"]`).first().waitFor();
    if (await page.getByTestId('login-form').isVisible()) {
      await page.fill('input[name=password]', PASSWORD);
      await page.click('button[type=submit]');
    }
    await page.getByTestId(ready).waitFor();
  }

  beforeAll(async () => {
    if (!STUDIO_BUILT) throw new Error('studio/web/dist/app is missing: run `npm run build -w @wiflow/studio-web` first');
    server = await startServer({ env: { WIFLOW_ADMIN_PASSWORD: PASSWORD } });
    bearer = await token(server.url, 'admin', PASSWORD);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('logs in with the same users as the APIs (a wrong password is refused)', async () => {
    await page.goto(server.url);
    await page.getByTestId('login-form').waitFor();
    await page.fill('input[name=username]', 'admin');
    await page.fill('input[name=password]', 'not-the-password');
    await page.click('button[type=submit]');
    await expect.poll(() => page.getByTestId('login-error').textContent()).toMatch(/invalid username or password/i);
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[type=submit]');
    await page.getByTestId('flow-list').waitFor();
    const stored = await page.evaluate(() => sessionStorage.getItem('wiflow.token'));
    expect(stored).toMatch(/^ey/);
  });

  it('builds a flow by dragging nodes and connecting handles, shows a compiler error on a node, fixes it and runs it', async () => {
    await page.fill('[data-testid=new-project-name]', 'Sensing');
    await page.click('[data-testid=new-project]');
    await page.getByTestId('mcp-link-Sensing').waitFor();
    const projects = await api<{ id: string; name: string }[]>('/api/v1/projects/');
    projectId = projects.find((p) => p.name === 'Sensing')!.id;
    expect(await page.getByTestId('new-flow-project').inputValue()).toBe(projectId);
    await page.fill('[data-testid=new-flow-name]', 'echo');
    await page.click('[data-testid=new-flow]');
    await page.waitForURL(/#\/flows\/[0-9a-f-]{36}$/);
    const flowId = page.url().split('/').pop()!;
    await page.getByTestId('palette-io.input').waitFor();

    const canvas = page.getByTestId('canvas');
    await page.getByTestId('palette-io.input').dragTo(canvas, { targetPosition: { x: 200, y: 200 } });
    await page.getByTestId('palette-io.output').dragTo(canvas, { targetPosition: { x: 650, y: 200 } });
    // Two nodes whose ports do not fit: a Doppler spectrum is no pose frame.
    await page.getByTestId('palette-csi.doppler').dragTo(canvas, { targetPosition: { x: 200, y: 420 } });
    await page.getByTestId('palette-tracker.track').dragTo(canvas, { targetPosition: { x: 650, y: 420 } });
    for (const id of ['input1', 'output1', 'doppler1', 'track1']) await page.getByTestId(`node-${id}`).waitFor();

    await connect(page, '[data-testid="handle-doppler1-out-spectra"]', '[data-testid="handle-track1-in-poses"]');
    expect(await page.locator('.react-flow__edge').count()).toBe(0);
    await connect(page, '[data-testid="handle-input1-out-value"]', '[data-testid="handle-output1-in-value"]');
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(1);
    // Undo and redo the connection from the keyboard.
    await page.keyboard.press('Control+z');
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(0);
    await page.keyboard.press('Control+Shift+z');
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(1);

    // A secret config field is a password field (write-only).
    await page.getByTestId('palette-mqtt.publish').dragTo(canvas, { targetPosition: { x: 420, y: 560 } });
    await page.getByTestId('node-publish1').click();
    expect(await page.locator('#cfg-password').getAttribute('type')).toBe('password');

    // Double-clicks in the palette add nodes without a drop point: each lands clear of the nodes already there.
    await page.getByTestId('palette-csi.window').dblclick();
    await page.getByTestId('node-window1').waitFor();
    await page.getByTestId('palette-csi.window').dblclick();
    await page.getByTestId('node-window2').waitFor();
    const boxes = await Promise.all(['input1', 'output1', 'doppler1', 'track1', 'publish1', 'window1', 'window2'].map(async (id) => [id, (await page.getByTestId(`node-${id}`).boundingBox())!] as const));
    const overlap = (a: { x: number; y: number; width: number; height: number }, b: typeof a) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
    for (const [id, box] of boxes.slice(5)) expect(boxes.filter(([other, b]) => other !== id && overlap(box, b)).map(([other]) => other), id).toEqual([]);

    // Remove the unrelated nodes again (select, Delete).
    for (const id of ['doppler1', 'track1', 'publish1', 'window1', 'window2']) {
      await page.getByTestId(`node-${id}`).click();
      await page.keyboard.press('Delete');
      await page.getByTestId(`node-${id}`).waitFor({ state: 'detached' });
    }

    // Saved without names: a draft whose problems show on the nodes they name.
    await page.click('[data-testid=save]');
    await expect.poll(() => page.getByTestId('status').textContent()).toMatch(/saved as draft: \d+ problem/);
    await page.getByTestId('problems-output1').waitFor();
    expect(await page.getByTestId('problems-output1').textContent()).toMatch(/name/);
    await page.getByTestId('node-output1').click();
    await page.getByTestId('config-error-name').waitFor();
    await page.screenshot({ path: path.join(shots, 'editor-compiler-error.png') });

    // Fix both nodes in the generated config forms.
    await page.getByTestId('node-input1').click();
    await page.fill('#cfg-name', 'message');
    await page.getByTestId('node-output1').click();
    await page.fill('#cfg-name', 'reply');
    await page.selectOption('#cfg-collect', 'last');
    await page.click('[data-testid=save]');
    await expect.poll(() => page.getByTestId('status').textContent()).toBe('saved');
    await page.getByTestId('problems-output1').waitFor({ state: 'detached' });
    const stored = await api<{ valid: boolean; revision: number; data: { nodes: { data: { config: Record<string, unknown> } }[]; edges: unknown[] } }>(`/api/v1/flows/${flowId}`);
    expect(stored.valid).toBe(true);
    expect(stored.data.nodes.map((n) => n.data.config.name).sort()).toEqual(['message', 'reply']);
    expect(stored.data.edges).toHaveLength(1);

    // Run it as a job from the form built from its io.input.
    await page.click('[data-testid=open-run]');
    await page.fill('[data-testid="run-input-message"]', 'hello from the studio');
    await page.click('[data-testid=run]');
    await expect.poll(() => page.getByTestId('run-result').textContent(), { timeout: 30_000 }).toContain('hello from the studio');
    expect(await page.getByTestId('run-log').textContent()).toMatch(/^end:/m);
    await page.screenshot({ path: path.join(shots, 'editor-run.png') });

    // Revisions: the two saves and the creation, newest first; restoring one makes a new revision.
    await page.getByTestId('more').click();
    await page.getByRole('button', { name: 'Revisions' }).click();
    await expect.poll(() => page.locator('.wf-revision').count()).toBeGreaterThanOrEqual(3);
    // Restore the first revision (the empty flow): a new revision, the canvas empties.
    await page.locator('.wf-revision').last().getByRole('button', { name: 'Restore' }).click();
    await expect.poll(() => page.getByTestId('status').textContent()).toMatch(/restored revision 1/);
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(0);
    await page.keyboard.press('Control+z');
    await expect.poll(() => page.locator('.react-flow__node').count()).toBe(2);
    await page.click('[data-testid=save]');
    await expect.poll(() => page.getByTestId('status').textContent()).toBe('saved');
  });

  it('imports a flow JSON and shows the compiler error on the edge it names; deleting the edge fixes it', async () => {
    const created = await api<{ id: string }>('/api/v1/flows/', { method: 'POST', json: { name: 'imported', folder_id: projectId, data: { nodes: [], edges: [] } } });
    await openStudio(`flows/${created.id}`, 'palette-io.input');
    const flow = {
      name: 'bad edge',
      data: {
        nodes: [
          { id: 'doppler', type: 'wiflow', position: { x: 0, y: 0 }, data: { nodeType: 'csi.doppler', config: {} } },
          { id: 'tracker', type: 'wiflow', position: { x: 420, y: 0 }, data: { nodeType: 'tracker.track', config: {} } },
        ],
        edges: [{ id: 'bad', source: 'doppler', sourceHandle: 'spectra', target: 'tracker', targetHandle: 'poses' }],
      },
    };
    await page.locator('input[type=file]').setInputFiles({ name: 'bad-edge.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(flow)) });
    await expect.poll(() => page.getByTestId('status').textContent()).toBe('imported 2 nodes');
    await page.click('[data-testid=validate]');
    await page.locator('.react-flow__edge.edge-problem').waitFor();
    expect(await page.locator('.react-flow__edge.edge-problem').textContent()).toMatch(/DopplerSpectrum/);
    expect(await page.getByTestId('problems').textContent()).toMatch(/incompatible_edge/);
    await page.locator('.react-flow__edge.edge-problem .react-flow__edge-textwrapper').click();
    await page.keyboard.press('Delete');
    await expect.poll(() => page.locator('.react-flow__edge').count()).toBe(0);
    await page.click('[data-testid=validate]');
    await expect.poll(() => page.getByTestId('problems').textContent()).not.toMatch(/incompatible_edge/);
  });

  it('publishes the flow as an MCP tool and the MCP server lists and calls it', async () => {
    await page.goto(`${server.url}/#/flows`);
    await page.click('[data-testid="mcp-link-Sensing"]');
    await page.getByTestId('mcp-page').waitFor();
    await page.check('[data-testid="mcp-enable-echo"]');
    await page.fill('[data-testid="mcp-action-echo"]', 'echo_message');
    await page.fill('[data-testid="mcp-description-echo"]', 'Repeats the message it is given');
    // A project asks for an API key until its owner opens it; the page warns while it is open.
    expect(await page.inputValue('[data-testid=mcp-auth]')).toBe('apikey');
    expect(await page.getByTestId('mcp-auth-warning').count()).toBe(0);
    await page.selectOption('[data-testid=mcp-auth]', 'none');
    expect(await page.getByTestId('mcp-auth-warning').textContent()).toContain('without credentials');
    await page.click('[data-testid=mcp-save]');
    await expect.poll(() => page.getByTestId('mcp-tools').textContent()).toContain('echo_message');
    expect(await page.getByTestId('mcp-client-config').textContent()).toContain(`/api/v1/mcp/project/${projectId}/streamable`);
    await page.screenshot({ path: path.join(shots, 'mcp-page.png') });

    const settings = await api<{ tools: { name: string; mcp_enabled: boolean; action_name: string | null; action_description: string | null }[] }>(`/api/v1/mcp/project/${projectId}`);
    expect(settings.tools.find((t) => t.name === 'echo')).toMatchObject({ mcp_enabled: true, action_name: 'echo_message', action_description: 'Repeats the message it is given' });

    // The project's MCP server (auth none) lists the tool and runs the flow.
    const url = `${server.url}/api/v1/mcp/project/${projectId}/streamable`;
    let { session } = await mcpCall(url, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'studio-test', version: '1' } }, null, 1);
    ({ session } = await mcpCall(url, 'notifications/initialized', {}, session, null));
    const listed = (await mcpCall(url, 'tools/list', {}, session, 2)).result as { tools: { name: string; description: string; inputSchema: { properties: Record<string, unknown> } }[] };
    const tool = listed.tools.find((t) => t.name === 'echo_message');
    expect(tool?.description).toBe('Repeats the message it is given');
    expect(Object.keys(tool!.inputSchema.properties)).toEqual(['message']);
    const called = (await mcpCall(url, 'tools/call', { name: 'echo_message', arguments: { message: 'over MCP' } }, session, 3)).result as { content: { text?: string }[] };
    expect(JSON.stringify(called.content)).toContain('over MCP');
  });

  it.skipIf(!hasShippedModel)('deploys the pose pipeline, shows live counters on the nodes and draws skeletons from real pose frames', async () => {
    const created = await api<{ id: string }>('/api/v1/flows/', { method: 'POST', json: { name: 'Pose pipeline', folder_id: projectId, data: await posePipeline() } });
    // The counters come over one server-sent event stream, not a request a second.
    const counterRequests: string[] = [];
    const seeRequest = (r: { url(): string }) => {
      if (/\/deployments\/[^/]+\/counters/.test(r.url())) counterRequests.push(new URL(r.url()).pathname.replace(/deployments\/[^/]+/, 'deployments/ID'));
    };
    page.on('request', seeRequest);
    await page.goto(`${server.url}/#/flows/${created.id}`);
    await page.getByTestId('node-pose').waitFor();
    await page.click('[data-testid=deploy]');
    await expect.poll(() => page.getByTestId('status').textContent()).toMatch(/deployed/);
    // Live counters: frames through the chain, poses out of the model, into the publisher.
    await expect
      .poll(async () => Number(/in (\d+)/.exec((await page.getByTestId('counters-publish').textContent().catch(() => '')) ?? '')?.[1] ?? 0), { timeout: 90_000, intervals: [500] })
      .toBeGreaterThan(3);
    expect(await page.getByTestId('counters-pose').textContent()).toMatch(/err 0/);
    // A hidden tab closes its stream (browsers share about six connections per server among all tabs)
    // and opens it again when shown; the counters go on.
    const closed: string[] = [];
    const seeClosed = (r: { url(): string }) => r.url().includes('/counters/stream') && closed.push(r.url());
    page.on('requestfailed', seeClosed);
    const opened = counterRequests.length;
    const setHidden = (hidden: boolean) =>
      page.evaluate((h) => {
        Object.defineProperty(document, 'hidden', { value: h, configurable: true });
        document.dispatchEvent(new Event('visibilitychange'));
      }, hidden);
    await setHidden(true);
    await expect.poll(() => closed.length, { timeout: 10_000 }).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(counterRequests.length).toBe(opened);
    const countedIn = async () => Number(/in (\d+)/.exec((await page.getByTestId('counters-publish').textContent()) ?? '')?.[1] ?? 0);
    const whileHidden = await countedIn();
    await setHidden(false);
    await expect.poll(() => counterRequests.length, { timeout: 10_000 }).toBe(opened + 1);
    await expect.poll(countedIn, { timeout: 20_000 }).toBeGreaterThan(whileHidden);
    page.off('requestfailed', seeClosed);
    await page.getByTestId('node-pose').click();
    await page.getByTestId('config-form').waitFor();
    await page.screenshot({ path: path.join(shots, 'editor-pose-pipeline.png') });

    await page.click('[data-testid=nav-live]');
    await page.getByTestId('live-view').waitFor();
    await expect.poll(() => page.getByTestId('frames-seen').textContent(), { timeout: 60_000 }).toMatch(/frames: (1[5-9]|[2-9]\d|\d\d\d+)/);
    await expect.poll(async () => Number(/people: (\d+)/.exec((await page.getByTestId('person-count').textContent()) ?? '')?.[1]), { timeout: 30_000 }).toBeGreaterThan(0);
    expect(await page.getByTestId('provenance').textContent()).toMatch(/simulated · model wiflow-pose-v1/);
    // Pixels the skeleton drawer put on the canvas: anything but the dark background.
    const drawn = await page.evaluate(() => {
      const canvas = document.querySelector('[data-testid=skeleton-canvas]') as HTMLCanvasElement;
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let coloured = 0;
      for (let i = 0; i < data.length; i += 4) if (Math.abs(data[i] - 0x11) + Math.abs(data[i + 1] - 0x11) + Math.abs(data[i + 2] - 0x11) > 60) coloured++;
      return coloured;
    });
    expect(drawn).toBeGreaterThan(200);
    const floorTrail = await page.evaluate(() => {
      const canvas = document.querySelector('[data-testid=floor-canvas]') as HTMLCanvasElement;
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let coloured = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i] + data[i + 1] + data[i + 2] < 600) coloured++;
      return coloured;
    });
    expect(floorTrail).toBeGreaterThan(50);
    await page.screenshot({ path: path.join(shots, 'live-view.png') });

    expect(counterRequests.length).toBeGreaterThan(0);
    expect([...new Set(counterRequests)]).toEqual(['/api/v1/studio/deployments/ID/counters/stream']);

    // Undeployed elsewhere (here through the API) while the editor shows it: the editor says so at once.
    await page.goto(`${server.url}/#/flows/${created.id}`);
    await expect.poll(() => page.getByTestId('deploy').textContent(), { timeout: 20_000 }).toBe('Undeploy');
    await expect.poll(async () => Number(/in (\d+)/.exec((await page.getByTestId('counters-publish').textContent().catch(() => '')) ?? '')?.[1] ?? 0), { timeout: 20_000 }).toBeGreaterThan(0);
    const deployments = await api<{ id: string }[]>('/api/v1/studio/deployments');
    for (const d of deployments) await api(`/api/v1/studio/deployments/${d.id}`, { method: 'DELETE' });
    await expect.poll(() => page.getByTestId('status').textContent(), { timeout: 10_000 }).toBe('the deployment has stopped');
    expect(await page.getByTestId('deploy').textContent()).toBe('Deploy');
    page.off('request', seeRequest);
  });

  it('shows a deployment that fails as failed, with the reason, and removes it', async () => {
    const data = {
      nodes: [
        { id: 'reader', position: { x: 0, y: 0 }, data: { nodeType: 'csi.file', config: { path: 'no-such-capture.wfr' } } },
        { id: 'rec', position: { x: 260, y: 0 }, data: { nodeType: 'csi.record', config: { path: 'copy.wfr' } } },
      ],
      edges: [{ id: 'e', source: 'reader', sourceHandle: 'frames', target: 'rec', targetHandle: 'frames' }],
    };
    const created = await api<{ id: string }>('/api/v1/flows/', { method: 'POST', json: { name: 'Missing capture', folder_id: projectId, data } });
    await page.goto(`${server.url}/#/flows/${created.id}`);
    await page.getByTestId('node-reader').waitFor();
    await page.click('[data-testid=deploy]');
    // It deploys, the reader fails as it starts: the editor says so, names the node and why, and offers Remove.
    await expect.poll(() => page.getByTestId('deployment-state').textContent(), { timeout: 20_000 }).toBe('failed');
    expect(await page.getByTestId('status').textContent()).toMatch(/the deployment failed: node reader \(csi\.file\) failed to start: .*no-such-capture\.wfr/);
    expect(await page.getByTestId('deploy').textContent()).toBe('Remove');
    await page.click('[data-testid=deploy]');
    await expect.poll(() => page.getByTestId('deploy').textContent(), { timeout: 20_000 }).toBe('Deploy');
    const left = await api<{ flow_id: string }[]>('/api/v1/studio/deployments');
    expect(left.filter((d) => d.flow_id === created.id)).toEqual([]);
  });

  it.runIf(!hasShippedModel)('reports that the shipped pose weights are missing (no skeleton check)', () => {
    console.warn(`no shipped pose weights at ${SHIPPED_MODEL}: the skeleton part of the studio suite is skipped (see docs/model.md)`);
  });

  /** Open a flow from the flow list and pan it with the mouse while requestAnimationFrame samples frame times. */
  async function measureCanvas(flowId: string, nodeCount: number, edgeCount: number) {
    await openStudio('flows', 'flow-list');
    // Load: from the route change to every node and edge on screen (fit view), measured in the page.
    const loadMs = await page.evaluate(
      async ({ id, nodes, edges }) => {
        const start = performance.now();
        window.location.hash = `#/flows/${id}`;
        await new Promise<void>((resolve, reject) => {
          const check = () => {
            const seen = [document.querySelectorAll('.react-flow__node').length, document.querySelectorAll('.react-flow__edge').length];
            if (seen[0] >= nodes && seen[1] >= edges) resolve();
            else if (performance.now() - start > 30_000) reject(new Error(`after 30 s: ${seen[0]} nodes, ${seen[1]} edges on screen at ${window.location.hash}: ${document.querySelector('[data-testid=status]')?.textContent}`));
            else requestAnimationFrame(check);
          };
          requestAnimationFrame(check);
        });
        return performance.now() - start;
      },
      { id: flowId, nodes: nodeCount, edges: edgeCount },
    );
    await page.evaluate(() => {
      const w = window as unknown as { __frames: number[]; __sampling: boolean };
      w.__frames = [];
      w.__sampling = true;
      let last = 0;
      const tick = (now: number) => {
        w.__frames.push(now - last);
        last = now;
        if (w.__sampling) requestAnimationFrame(tick);
      };
      requestAnimationFrame((now) => ((last = now), requestAnimationFrame(tick)));
    });
    const transformBefore = await page.locator('.react-flow__viewport').getAttribute('style');
    const pane = await page.locator('.react-flow__pane').boundingBox();
    // Grab the empty margin fit view leaves at the top left (a node there would be dragged instead).
    const start = { x: pane!.x + 20, y: pane!.y + 20 };
    await page.mouse.move(start.x, start.y);
    await page.mouse.down();
    const panStart = Date.now();
    for (let i = 1; i <= 40; i++) await page.mouse.move(start.x + i * 8, start.y + i * 4);
    for (let i = 39; i >= 0; i--) await page.mouse.move(start.x + i * 8, start.y + i * 4 + 80);
    await page.mouse.up();
    const panMs = Date.now() - panStart;
    const frames = await page.evaluate(() => {
      const w = window as unknown as { __frames: number[]; __sampling: boolean };
      w.__sampling = false;
      return w.__frames;
    });
    expect(await page.locator('.react-flow__viewport').getAttribute('style')).not.toBe(transformBefore);
    const sorted = [...frames].sort((a, b) => a - b);
    const pick = (q: number) => Number(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))].toFixed(1));
    return {
      nodes: nodeCount,
      edges: edgeCount,
      loadMs: Math.round(loadMs),
      panMs,
      mouseMoves: 80,
      frames: frames.length,
      frameMeanMs: Number((frames.reduce((a, b) => a + b, 0) / frames.length).toFixed(1)),
      frameP50Ms: pick(0.5),
      frameP95Ms: pick(0.95),
      frameMaxMs: pick(1),
      framesOver50Ms: frames.filter((f) => f > 50).length,
    };
  }

  it('opens a 300-node flow and pans it smoothly (load time and frame time, a 10-node flow as baseline)', async () => {
    const big = await api<{ id: string }>('/api/v1/flows/', { method: 'POST', json: { name: 'Scale 300', folder_id: projectId, data: bigFlow(30, 10) } });
    const small = await api<{ id: string }>('/api/v1/flows/', { method: 'POST', json: { name: 'Scale 10', folder_id: projectId, data: bigFlow(1, 10) } });
    const baseline = await measureCanvas(small.id, 10, 9);
    const figures = await measureCanvas(big.id, 300, 270);
    await page.screenshot({ path: path.join(shots, 'editor-300-nodes.png') });
    const cpus = (await import('node:os')).cpus().length;
    const load = (await import('node:os')).loadavg()[0];
    writeFileSync(path.join(shots, 'canvas-scale.json'), `${JSON.stringify({ cpus, loadAverage1m: load, baseline, figures }, null, 2)}\n`);
    console.log(`studio canvas scale (cpus ${cpus}, load ${load.toFixed(1)}): 300 nodes ${JSON.stringify(figures)}; baseline 10 nodes ${JSON.stringify(baseline)}`);
    expect(figures.frames).toBeGreaterThan(20);
    expect(figures.loadMs).toBeLessThan(15_000);
    // On a shared 2-core CI machine with software rendering frames come in vsync steps of
    // 16.7 ms; a median of 4 steps (15 fps) or more means the canvas stalls while panning.
    expect(figures.frameP50Ms).toBeLessThan(70);
  });

  it('raised no uncaught errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});

it.runIf(!hasChromium)('reports that Chromium is missing', () => {
  console.warn(`no Chromium at ${CHROMIUM}: the studio browser suite is skipped (apt-get install chromium)`);
});

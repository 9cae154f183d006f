// The live view's environment filter and the editor's job-only flows, in Debian's Chromium
// against the real `wiflow serve`: two simulated wards (ground-truth poses, no model) deployed
// together; the live view shows one ward's frames and people at a time, the choice survives a
// reload, and a kept ward whose pipeline is gone or failed says so; a job flow's editor offers Run… and
// disables Deploy with the reason.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium } from './support/browser.js';
import { sendEsp32Lines } from './support/esp32-datagrams.js';
import { ROOT, startServer, token, type ServerHandle } from './support/server.js';
import { startStudioWithExamples } from './support/studio-page.js';

const PASSWORD = 'live-environments-password-1';

/**
 * A simulated ward: the example "Healthcare on ground truth" (ground-truth poses, no model, so
 * light; tracker, fall detection, pose API) on another scenario, writing `environmentId`.
 */
function wardFlow(scenario: string, environmentId: string) {
  const example = JSON.parse(readFileSync(path.join(ROOT, 'examples/flows/healthcare-on-ground-truth.json'), 'utf8')) as { data: { nodes: { id: string; data: { config: Record<string, unknown> } }[] } };
  // Readable by flow-service runs: the shipped scenarios beside `studio.examplesDir` (by absolute
  // path; a relative one is read in the user's own files folder).
  const file = path.join(ROOT, 'examples/scenarios', scenario);
  for (const node of example.data.nodes) {
    if (node.id === 'sim') Object.assign(node.data.config, { scenario: file, environmentId });
    if (node.id === 'truth') Object.assign(node.data.config, { scenario: file });
  }
  return example.data;
}

/** A job: the text passed in comes back as the output `echo`. */
const echoJob = {
  nodes: [
    { id: 'in', position: { x: 0, y: 0 }, data: { nodeType: 'io.input', config: { name: 'text', kind: 'text' } } },
    { id: 'out', position: { x: 300, y: 0 }, data: { nodeType: 'io.output', config: { name: 'echo' } } },
  ],
  edges: [{ id: 'e', source: 'in', sourceHandle: 'value', target: 'out', targetHandle: 'value' }],
};

describe.skipIf(!hasChromium)('studio: live view by environment, job-only flows', () => {
  let server: ServerHandle;
  let browser: Browser;
  let bearer: string;
  let page: Page;
  const errors: string[] = [];
  const flows: Record<string, string> = {};
  let configFile = '';

  const api = async <T>(pathname: string, init: { method?: string; json?: unknown } = {}): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${server.url}${pathname}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${bearer}`, ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  };
  const createFlow = async (name: string, data: unknown) => {
    const created = await api<{ id: string }>('/api/v1/flows/', { method: 'POST', json: { name, data } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    flows[name] = created.body.id;
    return created.body.id;
  };
  const deploy = async (flowId: string) => {
    const deployed = await api<{ id: string }>('/api/v1/studio/deployments', { method: 'POST', json: { flow_id: flowId } });
    expect(deployed.status, JSON.stringify(deployed.body)).toBe(201);
    expect((deployed.body as { status?: string }).status, 'the ward pipeline runs').toBe('running');
  };

  /** Frames counted since the current choice, and the environments they came from. */
  const delivered = async () => ({
    frames: Number(((await page.getByTestId('frames-seen').textContent()) ?? '').replace(/\D+/g, '')),
    environments: (await page.getByTestId('live-view').getAttribute('data-delivered-environments')) ?? '',
  });
  /** Wait for `n` frames under the current choice; answer the environments they came from. */
  const environmentsOfFrames = async (n: number) => {
    await expect.poll(async () => (await delivered()).frames, { timeout: 20_000 }).toBeGreaterThanOrEqual(n);
    return (await delivered()).environments;
  };
  const people = async () => Number(((await page.getByTestId('person-count').textContent()) ?? '').replace(/\D+/g, ''));

  beforeAll(async () => {
    ({ server, configFile, bearer, browser, page } = await startStudioWithExamples('live-environments', PASSWORD, errors, async (started, admin) => {
      server = started;
      bearer = admin;
      // Ward A: the home (5 × 4 m, two people); ward B: the office crossing (7 × 5 m, three people).
      await deploy(await createFlow('Ward A', wardFlow('home-monitored.yaml', 'ward-a')));
      await deploy(await createFlow('Ward B', wardFlow('three-people-crossing.yaml', 'ward-b')));
      await createFlow('Echo job', echoJob);
      await createFlow('Ward C', wardFlow('home-monitored.yaml', 'ward-c'));
    }));
  }, 120_000);

  afterAll(async () => {
    for (const d of (await api<{ id: string }[]>('/api/v1/studio/deployments').catch(() => ({ body: [] as { id: string }[] }))).body ?? []) await api(`/api/v1/studio/deployments/${d.id}`, { method: 'DELETE' });
    await browser?.close();
    await server?.stop();
  });

  it("shows the first running environment by default, one ward's frames and people at a time", async () => {
    await page.goto(`${server.url}/#/live`);
    const select = page.getByTestId('live-environment');
    // Default: the first environment the server lists (ward A, deployed first), not both mixed.
    await expect.poll(() => select.inputValue()).toBe('ward-a');
    expect(await select.locator('option').allTextContents()).toEqual(['ward-a', 'ward-b', 'all environments']);
    expect(await environmentsOfFrames(10)).toBe('ward-a');
    expect(await page.getByTestId('room-legend').textContent()).toContain('ward-a: 5 × 4 m');
    expect(await people()).toBeLessThanOrEqual(2);

    await select.selectOption('ward-b');
    expect(await environmentsOfFrames(10)).toBe('ward-b');
    expect(await page.getByTestId('room-legend').textContent()).toContain('ward-b: 7 × 5 m');
    // The office's three people, none of the home's: the count is ward B's alone.
    await expect.poll(people, { timeout: 10_000 }).toBe(3);
    expect(page.url()).toContain('#/live?environment=ward-b');
  });

  it('keeps the choice across a reload and a visit from the navigation', async () => {
    await page.reload();
    await expect.poll(() => page.getByTestId('live-environment').inputValue()).toBe('ward-b');
    expect(await environmentsOfFrames(5)).toBe('ward-b');
    await page.getByTestId('nav-flows').click();
    await page.getByTestId('flow-list').waitFor();
    await page.getByTestId('nav-live').click();
    await expect.poll(() => page.getByTestId('live-environment').inputValue()).toBe('ward-b');
    expect(await environmentsOfFrames(5)).toBe('ward-b');
  });

  it('draws every environment together only when asked, and says they mix', async () => {
    await page.getByTestId('live-environment').selectOption('*');
    await expect.poll(async () => (await delivered()).environments.split(',').sort().join(','), { timeout: 20_000 }).toBe('ward-a,ward-b');
    expect(await page.getByTestId('mixed-environments').textContent()).toMatch(/^2 environments drawn together/);
    await page.getByTestId('live-environment').selectOption('ward-a');
    expect(await environmentsOfFrames(5)).toBe('ward-a');
    expect(await page.getByTestId('mixed-environments').count()).toBe(0);
  });

  it('says why a kept environment shows nothing: undeployed (until all environments is chosen), or failed with its error', async () => {
    const select = page.getByTestId('live-environment');
    await select.selectOption('ward-b');
    expect(await environmentsOfFrames(1)).toBe('ward-b');
    const notice = page.getByTestId('live-environment-notice');
    expect(await notice.count(), 'no notice while frames arrive').toBe(0);
    const wardB = (await api<{ id: string; flow_id: string }[]>('/api/v1/studio/deployments')).body.find((d) => d.flow_id === flows['Ward B']);
    expect((await api(`/api/v1/studio/deployments/${wardB!.id}`, { method: 'DELETE' })).status).toBe(204);
    // Opened again later (a reload, a restart): the kept choice is ward B, which nothing writes now.
    await page.reload();
    await notice.waitFor();
    expect(await notice.getAttribute('data-state')).toBe('absent');
    expect(await select.inputValue()).toBe('ward-b');
    await expect.poll(() => notice.getByTestId('live-notice-open-flow').getAttribute('href')).toBe(`#/flows/${flows['Ward B']}`);
    expect(await notice.textContent()).toMatch(/^Nothing to show for ward-b: no deployment writes it \(it was undeployed, or the server restarted since\)\. Open Ward B in the editor to deploy it again\./);
    await notice.getByTestId('live-notice-show-all').click();
    await notice.waitFor({ state: 'detached' });
    expect(await select.inputValue()).toBe('*');
    expect(page.url()).toContain('#/live?environment=*');
    expect(await environmentsOfFrames(3)).toBe('ward-a');

    // A deployment that failed (its scenario file is missing): the notice gives the stored error.
    const missing = path.join(ROOT, 'examples/scenarios/missing-ward.yaml');
    const wardF = await createFlow('Ward F', { nodes: [{ id: 'sim', position: { x: 0, y: 0 }, data: { nodeType: 'sim.source', config: { scenario: missing, environmentId: 'ward-f' } } }], edges: [] });
    expect((await api('/api/v1/studio/deployments', { method: 'POST', json: { flow_id: wardF } })).status).toBe(201);
    await page.goto(`${server.url}/#/live?environment=ward-f`);
    await page.reload();
    await expect.poll(() => notice.getAttribute('data-state')).toBe('failed');
    expect(await notice.textContent()).toMatch(/^Nothing to show for ward-f: its pipeline failed\. Ward F \(deployment [0-9a-f]{8}\) failed: node sim \(sim\.source\) failed to start: .*missing-ward\.yaml/);
    expect(await notice.getByTestId('live-notice-open-flow').getAttribute('href')).toBe(`#/flows/${wardF}`);
  });

  it("makes Run… a job flow's action: Deploy is disabled with the reason, and the run works", async () => {
    await page.goto(`${server.url}/#/flows/${flows['Echo job']}`);
    await page.getByTestId('node-in').waitFor();
    const deployButton = page.getByTestId('deploy');
    expect(await deployButton.isDisabled()).toBe(true);
    expect(await deployButton.getAttribute('title')).toBe('A job flow (it has Job input or Job output nodes) runs once per request: use Run…. Deployed as a pipeline its inputs would never arrive.');
    expect(await deployButton.getAttribute('class')).not.toContain('primary');
    const runButton = page.getByTestId('open-run');
    expect(await runButton.getAttribute('class')).toContain('primary');
    await runButton.click();
    await page.getByTestId('run-input-text').fill('hello ward');
    await page.getByTestId('run').click();
    await expect.poll(() => page.getByTestId('run-result').textContent(), { timeout: 20_000 }).toContain('hello ward');
    // Nothing was deployed.
    expect((await api<{ flow_id: string }[]>('/api/v1/studio/deployments')).body.map((d) => d.flow_id)).not.toContain(flows['Echo job']);
  });

  it("keeps Deploy a pipeline's primary action, and disables it as soon as a job node is added", async () => {
    await page.goto(`${server.url}/#/flows/${flows['Ward C']}`);
    await page.getByTestId('node-sim').waitFor();
    const deployButton = page.getByTestId('deploy');
    expect(await deployButton.isDisabled()).toBe(false);
    expect(await deployButton.getAttribute('class')).toContain('primary');
    expect(await page.getByTestId('open-run').getAttribute('class')).not.toContain('primary');
    // Double-clicking a palette entry adds the node: the flow becomes a job, Deploy is disabled.
    await page.getByTestId('palette-io.output').dblclick();
    await expect.poll(() => deployButton.isDisabled()).toBe(true);
    expect(await page.getByTestId('open-run').getAttribute('class')).toContain('primary');
  });

  it('shows a room that only senses (the ESP32 example, fed datagrams): presence, motion and breathing from CSI, no waiting notice', async () => {
    // The example as an installer deploys it, on a free port instead of 5566.
    const stored = (await api<{ id: string; name: string; data: { nodes: { data: { nodeType: string; config: Record<string, unknown> } }[] } }[]>('/api/v1/flows/?get_all=true')).body.find((f) => f.name === 'ESP32 room sensing');
    expect(stored, 'the ESP32 example is among the loaded examples').toBeDefined();
    for (const n of stored!.data.nodes) if (n.data.nodeType === 'csi.esp32-udp') n.data.config = { ...n.data.config, port: 0, host: '127.0.0.1' };
    expect((await api(`/api/v1/flows/${stored!.id}`, { method: 'PATCH', json: { data: stored!.data } })).status).toBe(200);
    const deployed = await api<{ id: string; status: string }>('/api/v1/studio/deployments', { method: 'POST', json: { flow_id: stored!.id } });
    expect(deployed.body.status).toBe('running');
    const counters = await api<{ counters: Record<string, { stats?: { port?: number } }> }>(`/api/v1/studio/deployments/${deployed.body.id}/counters`);
    const port = Number(counters.body.counters.esp.stats?.port);
    expect(port).toBeGreaterThan(0);

    await page.goto(`${server.url}/#/live?environment=room`);
    await page.reload();
    // 15 s of an ESP32-CSI-Tool receiver's clock (sense.room gives a room second once it has 10 s).
    await sendEsp32Lines(port, 15);
    const row = page.getByTestId('sensing-room');
    await row.waitFor({ timeout: 20_000 });
    expect(await row.textContent()).toMatch(/^room · (someone|nobody) present · (still|moving|empty|unknown)[a-z_]* · motion \d+ % · (breathing [\d.]+ \/min|no breathing rate \([a-z_]+\))/);
    expect(await row.textContent()).toMatch(/source: live · wiflow-sense-[\w.-]+ \([0-9a-f]{12}\)/);
    // Under it, the room's history: a bar per second received, and the window summed in words (read at one instant).
    const history = await page.evaluate(() => {
      const strip = document.querySelector('[data-testid="sensing-strip-room"]')!;
      return { seconds: Number(strip.getAttribute('data-seconds')), bars: strip.querySelectorAll('rect[data-kind="second"]').length, line: document.querySelector('[data-testid="sensing-history-room"]')!.textContent };
    });
    expect(history.seconds).toBeGreaterThan(0);
    expect(history.bars).toBe(history.seconds);
    expect(history.line).toMatch(new RegExp(`^last ${history.seconds} s: someone present \\d+ s · moving \\d+ s · still \\d+ s · empty \\d+ s · (no falls|\\d+ falls?)$`));
    // Frames of the room arrive (sensing ones): no notice says it waits for them, and no count is claimed.
    expect(await page.getByTestId('live-environment-notice').count()).toBe(0);
    expect(await page.getByTestId('person-count').textContent()).toBe('people: —');
    expect((await api(`/api/v1/studio/deployments/${deployed.body.id}`, { method: 'DELETE' })).status).toBe(204);
  });

  it('logs no error in the page', () => {
    expect(errors).toEqual([]);
  });

  /** Tell the page its tab was hidden or shown, as the browser does (headless Chromium never hides a tab itself). */
  const setTabVisible = (visible: boolean) =>
    page.evaluate((state) => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => state === 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    }, visible ? 'visible' : 'hidden');

  it('reads the deployments again as soon as its tab is shown, and asks nothing while hidden', async () => {
    await page.goto(`${server.url}/#/live?environment=ward-a`);
    await page.reload();
    expect(await environmentsOfFrames(1)).toBe('ward-a');
    const options = () => page.getByTestId('live-environment').locator('option').allTextContents();
    expect(await options()).not.toContain('ward-d');
    const asked: string[] = [];
    page.on('request', (r) => r.url().includes('/api/v1/studio/') && asked.push(r.url()));
    await setTabVisible(false);
    await deploy(await createFlow('Ward D', wardFlow('home-monitored.yaml', 'ward-d')));
    // Hidden past one 15-s refresh: no request, the list as it was.
    await new Promise((r) => setTimeout(r, 16_000));
    expect(asked).toEqual([]);
    expect(await options()).not.toContain('ward-d');
    await setTabVisible(true);
    await expect.poll(options, { timeout: 5_000 }).toContain('ward-d');
    expect(asked.length).toBeGreaterThan(0);
  });

  it('opens its stream again when the server comes back, keeping what it drew', async () => {
    const stream = page.getByTestId('live-stream');
    await page.getByTestId('live-environment').selectOption('ward-a');
    expect(await environmentsOfFrames(3)).toBe('ward-a');
    expect(await stream.getAttribute('data-state')).toBe('open');
    const port = new URL(server.url).port;
    await server.stop();
    await expect.poll(() => stream.getAttribute('data-state'), { timeout: 10_000 }).toBe('closed');
    expect(await stream.textContent()).toMatch(/reconnecting in \d+ s/);
    const before = (await delivered()).frames;
    // The same server again (same port, data folder and key): the studio's deployments do not outlive a
    // restart, so ward A is deployed again; the page is not reloaded.
    server = await startServer({ args: ['--config', configFile, '--port', port], dataDir: server.dataDir, env: { WIFLOW_ADMIN_PASSWORD: PASSWORD } });
    bearer = await token(server.url, 'admin', PASSWORD);
    await deploy(flows['Ward A']);
    await expect.poll(() => stream.getAttribute('data-state'), { timeout: 40_000 }).toBe('open');
    await expect.poll(async () => (await delivered()).frames, { timeout: 20_000 }).toBeGreaterThan(before + 3);
    expect((await delivered()).environments).toBe('ward-a');
    // Only the browser's own notes on the refused connections while the server was away.
    expect(errors.filter((e) => !/WebSocket connection to .* failed/.test(e))).toEqual([]);
  });
});

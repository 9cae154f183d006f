// The studio's Installer page for a room that only senses (one ESP32), in Debian's Chromium against
// the real `wiflow serve`: the example flow "ESP32 room sensing" deployed on a free UDP port and fed
// ESP32-CSI-Tool datagrams (the public sample's CSI at 20 packets/s). The server lists the link with its
// radio, packet rate and what it gives each capability (GET /api/v1/studio/sensing-links); the page shows
// it; the installer runs the walk test. Writes the screenshot docs/studio.md shows.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium } from './support/browser.js';
import { sendEsp32Lines } from './support/esp32-datagrams.js';
import { ROOT, type ServerHandle } from './support/server.js';
import { startStudioWithExamples } from './support/studio-page.js';

const PASSWORD = 'installer-sensing-password-1';
const SCREENSHOTS = path.join(ROOT, 'docs/screenshots');

interface SensingLink {
  environment_id: string;
  link: string;
  format: string | null;
  receive_chains: number | null;
  subcarriers: number | null;
  packets: number;
  packets_per_second: number | null;
  lost_fraction: number | null;
  last_second: number | null;
  recent_states: string;
  fall_detector: string | null;
  motion_model: string | null;
  motion_floor: { seconds: number; window_seconds: number; quantile: number } | null;
  flow_name: string | null;
  checks: { capability: string; verdict: string; reason: string }[];
}

describe.skipIf(!hasChromium)('studio Installer page: a room that only senses (one ESP32)', () => {
  let server: ServerHandle;
  let browser: Browser;
  let page: Page;
  let bearer: string;
  let port = 0;
  const errors: string[] = [];

  const api = async <T>(pathname: string, init: { method?: string; json?: unknown } = {}): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${server.url}${pathname}`, {
      method: init.method ?? 'GET',
      headers: { authorization: `Bearer ${bearer}`, ...(init.json !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: init.json !== undefined ? JSON.stringify(init.json) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  };

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    ({ server, bearer, browser, page } = await startStudioWithExamples('installer-sensing', PASSWORD, errors));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  it('says when no running pipeline senses with sense.link', async () => {
    expect((await api<{ links: unknown[]; links_not_listed: number }>('/api/v1/studio/sensing-links')).body).toEqual({ links: [], links_not_listed: 0 });
    await page.goto(`${server.url}/#/installer`);
    await page.getByTestId('installer-sensing-none').waitFor();
    expect(await page.getByTestId('installer-walk-test').count()).toBe(0);
  });

  it("lists the ESP32's link with its radio and packet rate, and what it gives each capability and why", async () => {
    const stored = (await api<{ id: string; name: string; data: { nodes: { data: { nodeType: string; config: Record<string, unknown> } }[] } }[]>('/api/v1/flows/?get_all=true')).body.find((f) => f.name === 'ESP32 room sensing');
    expect(stored, 'the ESP32 example is among the loaded examples').toBeDefined();
    for (const n of stored!.data.nodes) if (n.data.nodeType === 'csi.esp32-udp') n.data.config = { ...n.data.config, port: 0, host: '127.0.0.1' };
    expect((await api(`/api/v1/flows/${stored!.id}`, { method: 'PATCH', json: { data: stored!.data } })).status).toBe(200);
    const deployed = await api<{ id: string; status: string }>('/api/v1/studio/deployments', { method: 'POST', json: { flow_id: stored!.id } });
    expect(deployed.body.status).toBe('running');
    const counters = await api<{ counters: Record<string, { stats?: { port?: number } }> }>(`/api/v1/studio/deployments/${deployed.body.id}/counters`);
    port = Number(counters.body.counters.esp.stats?.port);
    await sendEsp32Lines(port, 15);

    let link: SensingLink | undefined;
    await expect
      .poll(async () => {
        link = (await api<{ links: SensingLink[] }>('/api/v1/studio/sensing-links')).body.links[0];
        return link?.last_second ?? -1;
      }, { timeout: 15_000 })
      .toBeGreaterThanOrEqual(13);
    // The sample's CSI (one chain, 51 subcarriers) at the 20 packets/s of the sender's clock.
    expect(link).toMatchObject({ environment_id: 'room', format: 'esp32', receive_chains: 1, subcarriers: 51, packets: 300, fall_detector: 'burst', flow_name: 'ESP32 room sensing' });
    expect(link!.packets_per_second).toBeGreaterThanOrEqual(19);
    expect(link!.packets_per_second).toBeLessThanOrEqual(21);
    expect(link!.lost_fraction).toBeLessThan(0.1);
    expect(link!.recent_states).toMatch(/^[esm]{14,15}$/);
    const verdict = Object.fromEntries(link!.checks.map((c) => [c.capability, c.verdict]));
    // At 20 packets/s the ESP32 reads movement with its slow links' model, against the link's own quiet floor: limited, and why.
    expect(verdict).toEqual({ movement: 'limited', still_person: 'limited', breathing: 'limited', falls: 'limited' });
    expect(link!.motion_model).toBe('slow-link');
    expect(link!.motion_floor).toMatchObject({ window_seconds: 300, quantile: 0.25 });
    expect(link!.motion_floor!.seconds).toBe(link!.last_second! + 1);
    expect(link!.checks[0].reason).toMatch(/^20 packets\/s, \d % of the 10-Hz grid's slots empty: under the rate this radio's motion model was fitted at, so movement is read by its slow links' model against the link's own quiet level \(the 25th percentile of each input over its last 5 min, \d+ s held so far\)/);
    expect(link!.checks.find((c) => c.capability === 'breathing')!.reason).toMatch(/^one receive chain/);

    await page.reload();
    const row = page.locator('[data-testid=installer-sensing-links] tr[data-link]');
    await row.first().waitFor();
    expect(await row.count()).toBe(1);
    expect(await row.getAttribute('data-environment')).toBe('room');
    expect(await row.locator('td').nth(2).textContent()).toBe('esp32, 1×1 chains, 51 subcarriers');
    for (const [capability, expected] of Object.entries(verdict)) expect(await row.locator(`td[data-capability=${capability}]`).getAttribute('data-verdict')).toBe(expected);
    expect(await row.locator('td[data-capability=falls]').textContent()).toMatch(/^limitedthe burst detector: no fall model was fitted or checked on real captures of this radio$/);
    // A person is kept present after they last moved; with one chain, breathing keeps them little: the cell says so.
    expect(await row.locator('td[data-capability=still_person]').textContent()).toMatch(/^limiteda person who sat or lay down is kept present for 5 min after they last moved; after that only a breathing rate keeps them/);
  });

  it('runs the walk test: a quiet phase, a walking phase, and a verdict per link from its own seconds', async () => {
    await page.fill('[data-testid=installer-walk-seconds]', '5');
    await page.click('[data-testid=installer-walk-start]');
    await page.locator('[data-testid=installer-walk-test][data-phase=quiet]').waitFor();
    expect(await page.getByTestId('installer-walk-instruction').textContent()).toMatch(/^1 of 2: leave the room \(or stand still outside it\), keep doors, fans and pets still: [1-5] s$/);
    // The receiver keeps sending through each phase: 10 s of its clock in each.
    await sendEsp32Lines(port, 10);
    await page.locator('[data-testid=installer-walk-test][data-phase=walk]').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('installer-walk-instruction').textContent()).toMatch(/^2 of 2: walk through the room, crossing between the radios, at a normal pace: [1-5] s$/);
    await sendEsp32Lines(port, 10);
    await page.locator('[data-testid=installer-walk-test][data-phase=done]').waitFor({ timeout: 15_000 });
    const result = page.locator('[data-testid=installer-walk-results] tr[data-link]');
    expect(await result.count()).toBe(1);
    const text = (await result.locator('td').nth(2).textContent())!;
    // Each phase is judged on the seconds the link sensed in it, less its first 3: about 7 of the 10 sent.
    const [, quietMoving, quietSeconds, walkMoving, walkSeconds] = text.match(/^quiet: moving in (\d+) of (\d+) s .*walking: moving in (\d+) of (\d+) s/)!.map(Number);
    expect(quietSeconds).toBeGreaterThanOrEqual(5);
    expect(walkSeconds).toBeGreaterThanOrEqual(5);
    // The verdict is the rule's on those counts (the sample's CSI is whatever it is: no one walked).
    const expected = quietMoving / quietSeconds <= 0.1 && walkMoving / walkSeconds >= 0.5 ? 'pass' : 'fail';
    expect(await result.getAttribute('data-verdict')).toBe(expected);
    await page.getByTestId('installer-sensing').screenshot({ path: path.join(SCREENSHOTS, 'studio-installer-sensing-1024.png') });
    expect(errors).toEqual([]);
  }, 60_000);
});

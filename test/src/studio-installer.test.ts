// The studio's Installer page in Debian's Chromium against the real `wiflow serve`: the system
// pipeline senses a hall whose bench moved after its empty-room reference was recorded. The
// page names the stale link and how to re-record; the installer records the empty room (leave
// the room, progress bar, quality check) and the new reference is stored over the flow's file
// and used. Writes the screenshots docs/studio.md shows.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { environmentFromScenario, readReference, simulateReference, writeReference } from '@wiflow/plugin-pose-tfjs';
import * as sim from '@wiflow/plugin-sim';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, hasChromium } from './support/browser.js';
import { ROOT, startServer, token, type ServerHandle } from './support/server.js';

const PASSWORD = 'installer-test-password-1';
const SCREENSHOTS = path.join(ROOT, 'docs/screenshots');

/** A hall whose bench was moved since its reference was recorded; nobody in it. */
const scenario = sim.hallScenario({ tvBox: true, movedBench: true });

describe.skipIf(!hasChromium)('studio Installer page', () => {
  let server: ServerHandle;
  let browser: Browser;
  let page: Page;
  let referenceFile: string;
  let dataDir: string;
  const errors: string[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    dataDir = path.join(ROOT, 'test-artifacts', `installer-${process.pid}`);
    mkdirSync(dataDir, { recursive: true });
    const validated = sim.validateScenario(scenario);
    referenceFile = path.join(dataDir, 'hall-reference.json');
    writeReference(referenceFile, simulateReference(sim as never, validated as never, 10));
    const pipeline = path.join(dataDir, 'hall-pipeline.json');
    writeFileSync(pipeline, JSON.stringify({
      id: 'hall-pipeline',
      name: 'hall',
      data: {
        nodes: [
          { id: 'sim', position: { x: 0, y: 0 }, data: { nodeType: 'sim.source', config: { scenario, realtime: true, loop: true } } },
          { id: 'locate', position: { x: 200, y: 0 }, data: { nodeType: 'pose.locate', config: { environments: [environmentFromScenario(validated as never)], references: [referenceFile], densePose: 'none' } } },
          { id: 'publish', position: { x: 400, y: 0 }, data: { nodeType: 'pose.publish', config: {} } },
        ],
        edges: [
          { id: 'e1', source: 'sim', sourceHandle: 'frames', target: 'locate', targetHandle: 'frames' },
          { id: 'e2', source: 'locate', sourceHandle: 'poses', target: 'publish', targetHandle: 'poses' },
        ],
      },
    }));
    const config = path.join(dataDir, 'config.json');
    writeFileSync(config, JSON.stringify({ api: { pipeline: { flow: pipeline } } }));
    server = await startServer({ args: ['--config', config], env: { WIFLOW_ADMIN_PASSWORD: PASSWORD }, dataDir });
    const bearer = await token(server.url, 'admin', PASSWORD);
    const started = await fetch(`${server.url}/api/v1/system/start`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: '{}' });
    expect(started.status).toBe(202);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await (await browser.newContext({ viewport: { width: 1024, height: 768 }, deviceScaleFactor: 1 })).newPage();
    page.on('console', (m) => m.type() === 'error' && errors.push(`${m.text()} (${m.location().url})`));
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(server.url);
    await page.fill('input[name=password]', PASSWORD);
    await page.click('button[type=submit]');
    await page.getByTestId('flow-list').waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('every page warns of the stale links and leads to the Installer page, which names them and says how to re-record', async () => {
    // The room must be still for 20 s (real time) before a link is judged; the banner asks every 15 s.
    await page.getByTestId('stale-banner').waitFor({ timeout: 90_000 });
    expect(await page.getByTestId('stale-banner').textContent()).toMatch(/^Stale empty-room reference on router->(laptop|tv-box) \(hall\).*re-record it on the Installer page\.$/);
    await page.getByTestId('stale-banner').getByRole('link', { name: 'Installer page' }).click();
    await page.getByTestId('installer-page').waitFor();
    await page.getByTestId('installer-stale').first().waitFor();
    const warnings = await page.getByTestId('installer-stale').allTextContents();
    expect(warnings.join('\n')).toMatch(/Link router->(laptop|tv-box) of hall: the empty room changed since its reference was recorded \(\d+\.\d noise floors\).*If the room was empty, record the reference again below/);
    expect(await page.getByTestId('installer-links').textContent()).toMatch(/router->laptop.*router->tv-box/);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'studio-installer-stale-1024.png') });
  }, 120_000);

  it('records the empty room: leave the room, progress, the quality check, stored over the flow\'s file and in use', async () => {
    await page.fill('[data-testid=installer-seconds]', '6');
    await page.click('[data-testid=installer-record]');
    await page.locator('[data-testid=installer-recording][data-state=recording]').waitFor();
    expect(await page.getByTestId('installer-recording').textContent()).toMatch(/Leave the room for 6 s/);
    await page.locator('[data-testid=installer-recording][data-state=stored]').waitFor({ timeout: 60_000 });
    expect(await page.getByTestId('installer-result').textContent()).toBe(`Reference stored in ${referenceFile} and in use`);
    expect(await page.getByTestId('installer-progress').evaluate((e) => (e as HTMLProgressElement).value)).toBe(1);
    const quality = await page.getByTestId('installer-quality').textContent();
    expect(quality).toMatch(/router->laptop.*none.*ok.*router->tv-box.*none.*ok/);
    expect(readReference(referenceFile).source).toBe('live: locate, 6 s');
    // The new reference is the room as it is now: no link is stale any more.
    await expect.poll(() => page.getByTestId('installer-stale').count(), { timeout: 10_000 }).toBe(0);
    // Elsewhere too: the banner is gone once the pages read the references again.
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/v1/system/references'));
    await page.click('[data-testid=nav-flows]');
    await page.getByTestId('flow-list').waitFor();
    expect((await (await answered).json()).rooms[0].links.map((l: { status: string }) => l.status)).not.toContain('stale');
    expect(await page.getByTestId('stale-banner').count()).toBe(0);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'studio-installer-recorded-1024.png') });
    expect(errors).toEqual([]);
  }, 120_000);
});

// The studio's Installer page in Debian's Chromium against the real `wiflow serve`: the system
// pipeline senses a hall whose bench moved after its empty-room reference was recorded. The
// page names the stale link and how to re-record; the installer records the empty room (leave
// the room, progress bar, quality check) and the new reference is stored over the flow's file
// and used. Writes the screenshots docs/studio.md shows.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { environmentFromScenario, readReference, simulateReference, writeReference } from '@wiflow/plugin-pose-tfjs';
import * as sim from '@wiflow/plugin-sim';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium } from './support/browser.js';
import { startLocateStudio } from './support/locate-studio.js';
import { ROOT, type ServerHandle } from './support/server.js';

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
    ({ server, browser, page } = await startLocateStudio({ dataDir, name: 'hall', scenario: scenario, environment: environmentFromScenario(validated as never), referenceFile, password: PASSWORD, errors }));
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
    expect(warnings.join('\n')).toMatch(/Link router->(laptop|tv-box) of hall: the empty room changed since its reference was recorded \(\d+\.\d noise floors as recorded, \d+\.\d noise floors with the locator's gain per receive chain\).*If the room was empty, record the reference again below/);
    const table = await page.getByTestId('installer-links').textContent();
    expect(table).toMatch(/router->laptop.*router->tv-box/);
    // The warning and the table agree: each figure the warning quotes stands in the table under its own label.
    const [, asRecorded, withChainGain] = warnings[0].match(/\((\d+\.\d) noise floors as recorded, (\d+\.\d) noise floors with/)!;
    expect(table).toContain(`Change as recorded`);
    expect(table).toContain(`${asRecorded} noise floors${withChainGain} noise floors`);
    expect(await page.getByTestId('installer-refresh').textContent()).toMatch(/^Automatic refresh: off \(pose\.locate's referenceRefresh\.enabled\); reference version 1, never refreshed\.$/);
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
    // The documented screenshot: the Installer page's recording, with the stored result and its quality check.
    await page.getByTestId('installer-recording').screenshot({ path: path.join(SCREENSHOTS, 'studio-installer-recorded-1024.png') });
    // Elsewhere too: the banner is gone once the pages read the references again.
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/v1/system/references'));
    await page.click('[data-testid=nav-flows]');
    await page.getByTestId('flow-list').waitFor();
    expect((await (await answered).json()).rooms[0].links.map((l: { status: string }) => l.status)).not.toContain('stale');
    expect(await page.getByTestId('stale-banner').count()).toBe(0);
    expect(errors).toEqual([]);
  }, 120_000);
});

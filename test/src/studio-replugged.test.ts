// The studio's Installer page in Debian's Chromium against the real `wiflow serve`: the laptop of
// a hall was re-plugged since its empty-room reference (new chain phases, nothing moved). The
// shipped locator aligns them (its gain per receive chain), so the page says "receiver
// re-plugged", that no action is needed, and warns of nothing: no stale warning, no banner.
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { environmentFromScenario, simulateReference, writeReference } from '@wiflow/plugin-pose-tfjs';
import * as sim from '@wiflow/plugin-sim';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium } from './support/browser.js';
import { startLocateStudio } from './support/locate-studio.js';
import { ROOT, type ServerHandle } from './support/server.js';

const PASSWORD = 'installer-test-password-1';

/** The furnished hall with its tv-box, nothing moved: the laptop unplugged and plugged in again since the reference. */
const furnished = sim.hallScenario({ tvBox: true, movedBench: true });
const scenario = { ...furnished, drift: { referenceSeed: 9, replugged: ['laptop'] } };

describe.skipIf(!hasChromium)('studio Installer page with a re-plugged receiver', () => {
  let server: ServerHandle;
  let browser: Browser;
  let page: Page;
  let dataDir: string;
  const errors: string[] = [];

  beforeAll(async () => {
    dataDir = path.join(ROOT, 'test-artifacts', `installer-replug-${process.pid}`);
    mkdirSync(dataDir, { recursive: true });
    const validated = sim.validateScenario(scenario);
    const referenceFile = path.join(dataDir, 'hall-reference.json');
    writeReference(referenceFile, simulateReference(sim as never, validated as never, 10));
    ({ server, browser, page } = await startLocateStudio({ dataDir, name: 'hall', scenario, environment: environmentFromScenario(validated as never), referenceFile, password: PASSWORD, errors }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('names the re-plugged link, says the locator copes and no action is needed, and raises no stale warning or banner', async () => {
    await page.click('[data-testid=nav-installer]');
    await page.getByTestId('installer-page').waitFor();
    // The room must be still for 20 s (real time) before a link is judged; the page asks every 15 s.
    await page.getByTestId('installer-replugged').waitFor({ timeout: 90_000 });
    expect(await page.getByTestId('installer-replugged').allTextContents()).toEqual([
      expect.stringMatching(/^Link router->laptop of hall: receiver re-plugged \(its chain phases changed since the reference: \d+ noise floors, \d\.\d noise floors with a gain per receive chain\)\. The locator aligns them; no action is needed\./),
    ]);
    expect(await page.getByTestId('installer-links').textContent()).toMatch(/router->laptopreceiver re-plugged \(locator copes\).*router->tv-box(fresh|not checked yet)/);
    expect(await page.getByTestId('installer-stale').count()).toBe(0);
    // No other page warns either.
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/v1/system/references'));
    await page.click('[data-testid=nav-flows]');
    await page.getByTestId('flow-list').waitFor();
    expect((await (await answered).json()).rooms[0].links.map((l: { status: string }) => l.status)).not.toContain('stale');
    expect(await page.getByTestId('stale-banner').count()).toBe(0);
    expect(errors).toEqual([]);
  }, 120_000);
});

import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from './browser.js';
import { ROOT, startServer, token, type ServerHandle } from './server.js';

/** A running `wiflow serve` with the example flows loaded, an admin token, and Debian's Chromium logged in to the studio. */
export interface StudioPage {
  server: ServerHandle;
  /** The config file the server was started with (to start it again the same way). */
  configFile: string;
  bearer: string;
  browser: Browser;
  page: Page;
}

/**
 * Start the server with the repository's example flows (`studio.examplesDir`) and `password` for the admin, run
 * `setup` (deploy flows, ...) with the admin's token, then open the studio at 1024 × 768 in Chromium and log in,
 * collecting console errors and page errors in `errors`.
 */
export async function startStudioWithExamples(name: string, password: string, errors: string[], setup?: (server: ServerHandle, bearer: string) => Promise<void>): Promise<StudioPage> {
  const configFile = path.join(tmpdir(), `wiflow-${name}-${process.pid}.json`);
  writeFileSync(configFile, JSON.stringify({ studio: { examplesDir: path.join(ROOT, 'examples/flows') } }));
  const server = await startServer({ args: ['--config', configFile], env: { WIFLOW_ADMIN_PASSWORD: password } });
  const bearer = await token(server.url, 'admin', password);
  await setup?.(server, bearer);
  return { server, configFile, bearer, ...(await openStudioLoggedIn(server.url, password, errors)) };
}

/**
 * Open the studio at `url` in Debian's Chromium at 1024 × 768 and log in as admin with `password`, collecting
 * console errors and page errors in `errors`; resolves once the flow list shows.
 */
export async function openStudioLoggedIn(url: string, password: string, errors: string[]): Promise<{ browser: Browser; page: Page }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const context = await browser.newContext({ viewport: { width: 1024, height: 768 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  page.on('console', (m) => m.type() === 'error' && errors.push(`${m.text()} (${m.location().url})`));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.fill('input[name=password]', password);
  await page.click('button[type=submit]');
  await page.getByTestId('flow-list').waitFor();
  return { browser, page };
}

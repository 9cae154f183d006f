import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './server.js';

/** Debian's Chromium (CI installs the `chromium` package). */
export const CHROMIUM = process.env.WIFLOW_CHROMIUM ?? '/usr/bin/chromium';

/** Whether a browser is available to drive. */
export const hasChromium = existsSync(CHROMIUM);

/** Flags for a quiet headless Chromium in a container. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** Folder for screenshots and other artefacts of the browser suites (gitignored). */
export function artifactsDir(suite: string): string {
  const dir = path.join(ROOT, 'test-artifacts', suite);
  mkdirSync(dir, { recursive: true });
  return dir;
}

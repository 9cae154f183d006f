// The studio's Installer page in Debian's Chromium against the real `wiflow serve`: which rooms
// are calibrated. The system pipeline senses a room (a simulated stand-in for a user's room);
// the page says it is not calibrated and gives the command. The installer runs that command,
// the real `wiflow calibrate` in its own process on the server's data directory, with a labelled
// recording and a later held-out one; the page, without a restart, shows the room calibrated with
// the model's id, hash, labelled minutes and held-out figures, the ones the command printed.
// Writes the screenshot docs/studio.md shows.
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { drawRoomPair, sessionScenario, simulateReference, writeLabelledSession, writeReference, type RoomCalibrationResult } from '@wiflow/plugin-pose-tfjs';
import * as sim from '@wiflow/plugin-sim';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium } from './support/browser.js';
import { startLocateStudio } from './support/locate-studio.js';
import { ROOT, type ServerHandle } from './support/server.js';

const PASSWORD = 'calibrated-rooms-password-1';
const SCREENSHOTS = path.join(ROOT, 'docs/screenshots');
const run = promisify(execFile);

describe.skipIf(!hasChromium)('studio Installer page: calibrated rooms', () => {
  let server: ServerHandle;
  let browser: Browser;
  let page: Page;
  let dataDir: string;
  // Without realism v2, so the locator finds people and the calibration has rows to learn from; this suite is about what the page shows.
  const pair = { ...drawRoomPair(sim, 'studio-calibrated'), realism: 'none' as const };
  const errors: string[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    dataDir = path.join(ROOT, 'test-artifacts', `calibrated-rooms-${process.pid}`);
    mkdirSync(dataDir, { recursive: true });
    const live = sessionScenario(sim, pair, { role: 'test', seed: 'live', seconds: 60, people: [1, 1], personHeight: [1.6, 1.8] });
    const referenceFile = path.join(dataDir, 'room-reference.json');
    writeReference(referenceFile, simulateReference(sim as never, live as never));
    ({ server, browser, page } = await startLocateStudio({ dataDir, name: 'room', scenario: live, environment: pair.environment, referenceFile, password: PASSWORD, errors }));
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('an uncalibrated room says so and gives the command that calibrates it', async () => {
    await page.click('[data-testid=nav-installer]');
    const row = page.locator(`[data-testid=installer-calibration-room][data-environment="${pair.environmentId}"]`);
    await row.waitFor({ timeout: 30_000 });
    expect(await row.getAttribute('data-calibrated')).toBe('false');
    expect(await row.textContent()).toContain(`not calibrated no room model in ${path.join(dataDir, 'room-pose', pair.environmentId)}`);
    expect(await row.getByTestId('installer-calibrate-command').textContent()).toBe(`wiflow calibrate --recording <labelled recording dir> --held-out <later labelled recording dir> --models ${path.join(dataDir, 'room-pose')}`);
  }, 60_000);

  it('after `wiflow calibrate` the room shows calibrated: the model id, hash, labelled minutes and the held-out figures the command printed', async () => {
    const recording = writeLabelledSession(sim, pair, { role: 'labelled', seed: 'studio-l', seconds: 12, people: [1, 2], personHeight: [1.6, 1.8] }, path.join(dataDir, 'labelled'));
    const heldOut = writeLabelledSession(sim, pair, { role: 'test', seed: 'studio-e', seconds: 8, people: [1, 1], personHeight: [1.45, 1.6] }, path.join(dataDir, 'held-out'));
    // The installer's own command, in its own process, on the server's data directory (the default models directory).
    const { stdout } = await run(process.execPath, [path.join(ROOT, 'core/bin/wiflow.js'), '--data-dir', dataDir, 'calibrate', '--recording', recording, '--held-out', heldOut, '--twin-seconds', '10', '--json'], { cwd: ROOT, env: { ...process.env, WIFLOW_LOG_LEVEL: 'error' }, maxBuffer: 1 << 24 });
    const result = JSON.parse(stdout) as RoomCalibrationResult;
    expect(result.modelDir).toBe(path.join(dataDir, 'room-pose', pair.environmentId));
    const row = page.locator(`[data-testid=installer-calibration-room][data-environment="${pair.environmentId}"]`);
    // The page asks every second; the figures are there once the command has finished.
    await row.and(page.locator('[data-calibrated=true]')).filter({ hasText: 'located mean pose: MPJPE' }).waitFor({ timeout: 30_000 });
    const text = (await row.textContent())!;
    expect(text).toContain(`calibrated wiflow-room-pose-v1 sha256 ${result.modelHash.slice(0, 12)}`);
    expect(text).toContain(`${(result.labelledSeconds / 60).toFixed(1)} labelled minutes`);
    const mm = (v: number | null) => (v === null ? '—' : `${Math.round(v)} mm`);
    expect(text).toContain(`MPJPE ${mm(result.heldOut!.roomModel.mpjpeMm)}, posture ${mm(result.heldOut!.roomModel.rootRelativeMpjpeMm)}`);
    expect(text).toContain(`located mean pose: MPJPE ${mm(result.heldOut!.locatedMeanPose.mpjpeMm)}`);
    expect(text).toMatch(/trained \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    // What the room emits, chosen on the held-out recording, with each candidate's figure.
    expect(await row.getByTestId('installer-calibration-choice').getAttribute('data-uses')).toBe(result.choice.use);
    expect(text).toContain(`uses ${result.choice.use} (held-out MPJPE on ${result.choice.heldOutCount}: located mean posture ${mm(result.choice.figures['located-mean-posture'])}, network posture ${mm(result.choice.figures['network-posture'])}, network ${mm(result.choice.figures.network)})`);
    await row.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(SCREENSHOTS, 'studio-installer-calibrated-1024.png') });
    expect(errors).toEqual([]);
  }, 300_000);
});

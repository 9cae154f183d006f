#!/usr/bin/env node
// The README's test command: build everything, run every package's tests (turbo, build
// before test), then print one closing line summing the vitest JSON reports of all packages.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPORT = '.test-results.json';

function packageDirs() {
  const dirs = [path.join(root, 'core'), path.join(root, 'test')];
  for (const group of ['plugins', 'studio', 'examples']) {
    const base = path.join(root, group);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base)) dirs.push(path.join(base, name));
  }
  return dirs.filter((d) => existsSync(path.join(d, 'package.json')));
}

for (const dir of packageDirs()) rmSync(path.join(dir, REPORT), { force: true });

const extra = process.argv.slice(2);
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' };
// Build everything first: tests discover installed plugins, so every package's dist must exist
// before any suite starts (turbo caches the builds, so the test task's own build is a cache hit).
const build = spawnSync('npx', ['turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit', env });
if (build.status !== 0) {
  console.log('the build failed: no tests were run');
  process.exit(1);
}
const result = spawnSync('npx', ['turbo', 'run', 'test', '--concurrency=1', '--continue', ...extra], { cwd: root, stdio: 'inherit', env });

let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
for (const dir of packageDirs()) {
  const file = path.join(dir, REPORT);
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  if (!manifest.scripts?.test) continue;
  if (!existsSync(file)) {
    missing.push(path.relative(root, dir));
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  passed += report.numPassedTests ?? 0;
  failed += report.numFailedTests ?? 0;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}
if (missing.length) console.log(`packages without a test report (their tests did not run): ${missing.join(', ')}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(result.status === 0 && failed === 0 && missing.length === 0 ? 0 : 1);

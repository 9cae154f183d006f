#!/usr/bin/env node
// The README's test command: build everything (turbo), run every package's tests, then print
// how long each package took and one closing line summing the vitest JSON reports of all packages.
//
// The tests run in two lanes at once, one package at a time in each:
// - "compute": the packages whose suites replay long evaluations in one process (the locator's
//   and room-pose models, the end-to-end and sensing evaluations). They need a core each and
//   nothing else: no ports, no brokers, no browser.
// - "services": every other package, with its servers, brokers, browsers and timing, one after
//   another as before.
// Vitest runs one worker per package on a 2-core machine, so one lane alone leaves a core idle for
// most of the run; two lanes use both. The compute packages alone took ~200 s longer than all the
// others, so one of them is split by file (SPLIT): its long evaluation file stays in the compute
// lane, its other files run in the services lane, each part with its own JSON report.
// `npm test -- ARGS` (for example `--filter=@wiflow/core`) passes ARGS to `turbo run test` and runs
// the old way, one package at a time.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REPORT = '.test-results.json';
/** A package's reports: `.test-results.json`, and one per part of a split package (`.test-results.<part>.json`). */
const REPORT_FILE = /^\.test-results(\.[a-z-]+)?\.json$/;
const COMPUTE = ['@wiflow/plugin-pose-tfjs', '@wiflow/plugin-evaluation', '@wiflow/plugin-sensing'];
/**
 * Compute packages split by file: `files` (their long evaluations) run in the compute lane, the
 * package's other files in the services lane (measured 2026-11-29: sensing's real-capture evaluation
 * ~200 s, its other 17 files ~95 s). Both parts run the package's own vitest config.
 */
const SPLIT = { '@wiflow/plugin-sensing': { files: ['src/eval/real-eval.test.ts'], label: 'real', rest: 'rest' } };

function packageDirs() {
  const dirs = [path.join(root, 'core'), path.join(root, 'test')];
  for (const group of ['plugins', 'studio', 'examples']) {
    const base = path.join(root, group);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base)) dirs.push(path.join(base, name));
  }
  return dirs.filter((d) => existsSync(path.join(d, 'package.json')));
}

function manifestOf(dir) {
  return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
}

/**
 * Runs one package's test script (or, with `part`, vitest on some of its files, reporting to the
 * part's own file); its output streams line by line, each line prefixed with the package's name.
 */
function runPackage(dir, env, part) {
  const name = manifestOf(dir).name + (part ? ` (${part.label})` : '');
  const started = Date.now();
  return new Promise((resolve) => {
    const command = part ? ['npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${part.report}`, ...part.args]] : ['npm', ['run', 'test', '--silent']];
    const child = spawn(command[0], command[1], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const pipe = (stream, out) => {
      let rest = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => {
        const lines = (rest + chunk).split('\n');
        rest = lines.pop();
        for (const line of lines) out.write(`${name}:test: ${line}\n`);
      });
      stream.on('end', () => {
        if (rest) out.write(`${name}:test: ${rest}\n`);
      });
    };
    pipe(child.stdout, process.stdout);
    pipe(child.stderr, process.stderr);
    child.on('error', (error) => {
      process.stderr.write(`${name}:test: could not start: ${error.message}\n`);
      resolve({ name, code: 1, seconds: (Date.now() - started) / 1000 });
    });
    child.on('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), seconds: (Date.now() - started) / 1000 }));
  });
}

async function runLane(lane, jobs, env, results) {
  for (const { dir, part } of jobs) {
    const result = await runPackage(dir, env, part);
    results.push({ ...result, lane });
  }
}

for (const dir of packageDirs()) {
  for (const file of readdirSync(dir)) if (REPORT_FILE.test(file)) rmSync(path.join(dir, file), { force: true });
}

const extra = process.argv.slice(2);
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' };
// Build everything first: tests discover installed plugins, so every package's dist must exist
// before any suite starts.
const build = spawnSync('npx', ['turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit', env });
if (build.status !== 0) {
  console.log('the build failed: no tests were run');
  process.exit(1);
}

// Every temporary file of the run (test runtimes' data folders, brokers' configs, Chromium profiles, child
// processes' files) goes under one folder of its own, removed when the run ends: the suites leave ~340
// folders (~150 MB) in the system's temporary folder per run otherwise. WIFLOW_KEEP_TEST_TMP=1 keeps it.
const runTmp = mkdtempSync(path.join(tmpdir(), 'wiflow-test-run-'));
env.TMPDIR = runTmp;
function removeRunTmp() {
  if (process.env.WIFLOW_KEEP_TEST_TMP === '1') {
    console.log(`temporary files kept in ${runTmp} (WIFLOW_KEEP_TEST_TMP=1)`);
    return;
  }
  rmSync(runTmp, { recursive: true, force: true, maxRetries: 3 });
}
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    removeRunTmp();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

let testsOk;
if (extra.length > 0) {
  const result = spawnSync('npx', ['turbo', 'run', 'test', '--concurrency=1', '--continue', ...extra], { cwd: root, stdio: 'inherit', env });
  testsOk = result.status === 0;
} else {
  const withTests = packageDirs().filter((dir) => manifestOf(dir).scripts?.test);
  const compute = withTests.filter((dir) => COMPUTE.includes(manifestOf(dir).name));
  // Longest first, so the lane's end is not one long suite started last.
  compute.sort((a, b) => COMPUTE.indexOf(manifestOf(a).name) - COMPUTE.indexOf(manifestOf(b).name));
  const computeJobs = [];
  // A split package's other files go first in the services lane, while the compute lane runs its longest package.
  const servicesJobs = [];
  for (const dir of compute) {
    const split = SPLIT[manifestOf(dir).name];
    if (!split) {
      computeJobs.push({ dir });
      continue;
    }
    computeJobs.push({ dir, part: { label: split.label, report: REPORT, args: split.files } });
    servicesJobs.push({ dir, part: { label: split.rest, report: `.test-results.${split.rest}.json`, args: split.files.flatMap((f) => ['--exclude', f]) } });
  }
  servicesJobs.push(...withTests.filter((dir) => !compute.includes(dir)).map((dir) => ({ dir })));
  const results = [];
  const started = Date.now();
  await Promise.all([runLane('compute', computeJobs, env, results), runLane('services', servicesJobs, env, results)]);
  console.log(`\ntests took ${Math.round((Date.now() - started) / 1000)} s in two lanes:`);
  for (const r of [...results].sort((a, b) => b.seconds - a.seconds)) {
    console.log(`  ${r.name.padEnd(32)} ${r.lane.padEnd(9)} ${String(Math.round(r.seconds)).padStart(5)} s${r.code === 0 ? '' : `  (exit ${r.code})`}`);
  }
  testsOk = results.every((r) => r.code === 0);
}

let passed = 0;
let failed = 0;
let skipped = 0;
const missing = [];
/** The failures one report holds: failed tests, and test files that failed before any test ran. */
function failuresOf(report, dir) {
  const lines = [];
  for (const file of report.testResults ?? []) {
    const where = path.relative(root, file.name ?? dir);
    const failedTests = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const t of failedTests) {
      const why = String(t.failureMessages?.[0] ?? '').split('\n')[0].slice(0, 300);
      lines.push(`  ${where} > ${t.fullName ?? t.title}\n      ${why}`);
    }
    if (failedTests.length === 0 && file.status === 'failed') {
      lines.push(`  ${where}\n      ${String(file.message ?? 'the file failed').split('\n')[0].slice(0, 300)}`);
    }
  }
  return lines;
}
const failures = [];
for (const dir of packageDirs()) {
  const manifest = manifestOf(dir);
  if (!manifest.scripts?.test) continue;
  const split = extra.length === 0 ? SPLIT[manifest.name] : undefined;
  // Every report the package must have: one, or one per part of a split package.
  const expected = split ? [REPORT, `.test-results.${split.rest}.json`] : [REPORT];
  const absent = expected.filter((name) => !existsSync(path.join(dir, name)));
  if (absent.length) {
    // With ARGS, turbo picks the packages (a filter): one it did not run has no report, and that is no fault.
    if (extra.length > 0) continue;
    missing.push(`${path.relative(root, dir)} (${absent.join(', ')})`);
    continue;
  }
  for (const name of expected) {
    const report = JSON.parse(readFileSync(path.join(dir, name), 'utf8'));
    passed += report.numPassedTests ?? 0;
    failed += report.numFailedTests ?? 0;
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    failures.push(...failuresOf(report, dir));
  }
}
// The lanes' output interleaves, so the failures are repeated here, at the end, where they are read.
if (failures.length) console.log(`\nfailed:\n${failures.join('\n')}`);
if (missing.length) console.log(`packages without a test report (their tests did not run): ${missing.join(', ')}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
removeRunTmp();
process.exit(testsOk && failed === 0 && missing.length === 0 ? 0 : 1);

#!/usr/bin/env node
// The README's start command (after `npm ci`): build every package, then run `wiflow serve`
// with the embedded defaults (SQLite in ./.wiflow, the default pipeline, the studio).
import { spawnSync, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' };
const build = spawnSync('npx', ['turbo', 'run', 'build', '--output-logs=errors-only'], { cwd: root, stdio: 'inherit', env });
if (build.status !== 0) process.exit(build.status ?? 1);
const args = process.argv.slice(2);
// The demo configuration: the default pipeline starts with the server, example flows load on first start.
if (!args.includes('--config') && !process.env.WIFLOW_CONFIG) args.push('--config', path.join(root, 'examples/config/demo.json'));
const server = spawn(process.execPath, [path.join(root, 'core/bin/wiflow.js'), 'serve', ...args], { cwd: root, stdio: 'inherit', env });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code) => process.exit(code ?? 0));

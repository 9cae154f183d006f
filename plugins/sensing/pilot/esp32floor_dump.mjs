// Per-second motion inputs of the ESP32 breathing set at its own rate (pilot/esp32floor-protocol.md, check only).
// Usage: node pilot/esp32floor_dump.mjs [root] > /tmp/slowref/breathing.jsonl
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { senseCapture, defaultRealRoot } from '../dist/index.js';

const root = process.argv[2] ?? defaultRealRoot();
const dir = join(root, 'breathing-esp32');
const labels = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8'));
for (const e of labels) {
  const seconds = [];
  await senseCapture(join(dir, e.file), { onMotionFeatures: (s, f) => seconds.push({ s, ...f }) });
  process.stdout.write(JSON.stringify({ file: e.file, label: e.label, subject: e.subject, seconds }) + '\n');
}

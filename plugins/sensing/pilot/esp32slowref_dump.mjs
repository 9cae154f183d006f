// Per-second motion inputs of the ESP32 presence set thinned to slower links (pilot/esp32slowref-protocol.md).
// Usage: node pilot/esp32slowref_dump.mjs [root] > /tmp/slowref/features.jsonl
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { senseCapture, defaultRealRoot } from '../dist/index.js';

const root = process.argv[2] ?? defaultRealRoot();
const dir = join(root, 'presence-esp32');
const labels = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8'));
for (const e of labels) {
  for (const k of [1, 2, 5, 10, 20]) {
    const seconds = [];
    await senseCapture(join(dir, e.file), { thin: k, onMotionFeatures: (s, f) => seconds.push({ s, ...f }) });
    process.stdout.write(JSON.stringify({ file: e.file, label: e.label, chip: e.chip, k, seconds }) + '\n');
  }
}

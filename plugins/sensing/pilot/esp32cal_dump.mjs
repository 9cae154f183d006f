// Per-second motion features of the ESP32 presence set (issue 22, esp32cal pilot): one JSON line per file.
// Usage: node pilot/esp32cal_dump.mjs [root] > /tmp/esp32cal-pilot/features.jsonl
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { senseCapture, defaultRealRoot } from '../dist/index.js';

const root = process.argv[2] ?? defaultRealRoot();
const dir = join(root, 'presence-esp32');
const labels = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8'));
for (const e of labels) {
  const seconds = [];
  await senseCapture(join(dir, e.file), { onMotionFeatures: (s, f) => seconds.push({ s, ...f }) });
  process.stdout.write(JSON.stringify({ file: e.file, label: e.label, chip: e.chip, seconds }) + '\n');
}

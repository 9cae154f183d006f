// Durability test helper: ingests pose frames until killed, printing `ACK <frameId>` after
// each flush() resolves (every frame up to that id is then durable).
// Usage: node ingest-child.js <db file> <first frame id> <start ms>
import { SqliteStorage } from '../sqlite-storage.js';
import { syntheticFrame } from './synthetic-frames.js';

const [file, firstArg, startArg] = process.argv.slice(2);
if (!file || firstArg === undefined || startArg === undefined) {
  console.error('usage: ingest-child <db file> <first frame id> <start ms>');
  process.exit(2);
}
const storage = new SqliteStorage({ file, flushIntervalMs: 20, flushMaxRecords: 2000, retentionIntervalMs: 0 });
await storage.open();
let frameId = Number(firstArg);
const start = Number(startArg);
console.log('READY');
for (let batch = 0; ; batch++) {
  const frames = [];
  for (let i = 0; i < 25; i++) frames.push(syntheticFrame(frameId++, start, 'durability', 2));
  await storage.poses.append(frames);
  if (batch % 8 === 7) {
    await storage.flush();
    console.log(`ACK ${frameId - 1}`);
  }
  // Let the background flush timer run between batches, as a live pipeline would.
  await new Promise((resolve) => setImmediate(resolve));
}

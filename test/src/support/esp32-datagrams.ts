import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './server.js';

/**
 * Be an ESP32-CSI-Tool receiver sending over UDP to 127.0.0.1:`port`: `seconds` of its own clock at
 * `packetsPerSecond` (default 20), one CSV line a datagram. The lines are the public sample capture's (its real
 * CSI, `plugins/csi/test-fixtures/esp32`), in turn, with their local_timestamp column (µs) advanced
 * evenly (50 ms a line at 20 packets/s), sent as fast as the socket takes them with a breath every 10.
 */
export async function sendEsp32Lines(port: number, seconds: number, packetsPerSecond = 20): Promise<number> {
  const lines = readFileSync(path.join(ROOT, 'plugins/csi/test-fixtures/esp32/example_data.csv'), 'latin1').split('\n').filter((l) => l.startsWith('CSI_DATA'));
  const client = createSocket('udp4');
  const count = seconds * packetsPerSecond;
  const stepUs = Math.round(1_000_000 / packetsPerSecond);
  try {
    for (let k = 0; k < count; k++) {
      const columns = lines[k % lines.length].split(',');
      columns[18] = String(1_000_000 + k * stepUs);
      await new Promise<void>((resolve, reject) => client.send(Buffer.from(columns.join(',') + '\n'), port, '127.0.0.1', (e) => (e ? reject(e) : resolve())));
      if (k % 10 === 9) await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    client.close();
  }
  return count;
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assignRooms, RoomShards } from '../index.js';
import { NATS_SERVER, startNatsServer, type NatsTestServer } from '../nats-server.test-helper.js';

if (!NATS_SERVER) console.warn('room shards test skipped: nats-server is not installed (apt-get install nats-server; .ci/run installs it)');

const rooms = ['hall', 'kitchen', 'office', 'shop', 'lab', 'garage'];

/** Resolves with the owned rooms the first time `test` holds for them. */
function ownedWhen(shards: RoomShards, test: (owned: ReadonlySet<string>) => boolean): Promise<ReadonlySet<string>> {
  return new Promise((resolve) => {
    if (test(shards.owned())) return resolve(shards.owned());
    const off = shards.onChange((owned) => {
      if (!test(owned)) return;
      off();
      resolve(owned);
    });
  });
}

describe.skipIf(!NATS_SERVER)('RoomShards (real nats-server)', () => {
  let server: NatsTestServer;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(() => server?.stop());

  it('splits the rooms between live workers with no overlap, and gives a silent worker\'s rooms to the others', async () => {
    const options = { group: 'g1', rooms, heartbeatIntervalMs: 150, missedBeats: 3, joinDelayMs: 300 };
    const [a, b, c] = await Promise.all([server.connect(), server.connect(), server.connect()]);
    const w1 = new RoomShards(a, { ...options, instanceId: 'w1' });
    const w2 = new RoomShards(b, { ...options, instanceId: 'w2' });
    const w3 = new RoomShards(c, { ...options, instanceId: 'w3' });
    await Promise.all([w1.start(), w2.start(), w3.start()]);
    const all = [w1, w2, w3];
    // Every worker settles on the same assignment: each room owned by exactly one.
    const expected = w1.assignment();
    await Promise.all(all.map((w, i) => ownedWhen(w, (owned) => [...owned].sort().join() === rooms.filter((r) => expected.get(r) === `w${i + 1}`).sort().join())));
    expect(all.reduce((n, w) => n + w.owned().size, 0)).toBe(rooms.length);
    // w3 dies (no leaving beat): after missedBeats intervals w1 and w2 hold every room between them.
    const held3 = [...w3.owned()];
    w3.stop({ leave: false });
    const after = assignRooms(rooms, ['w1', 'w2']);
    await Promise.all([w1, w2].map((w, i) => ownedWhen(w, (owned) => [...owned].sort().join() === rooms.filter((r) => after.get(r) === `w${i + 1}`).sort().join())));
    expect(w1.owned().size + w2.owned().size).toBe(rooms.length);
    for (const room of held3) expect(w1.owned().has(room) || w2.owned().has(room)).toBe(true);
    expect([...w1.owned()].filter((r) => w2.owned().has(r))).toEqual([]);
    w1.stop();
    w2.stop();
  });

  it('hands a worker\'s rooms over at once when it leaves gracefully', async () => {
    const options = { group: 'g2', rooms, heartbeatIntervalMs: 60_000, missedBeats: 3, joinDelayMs: 300 };
    const [a, b] = await Promise.all([server.connect(), server.connect()]);
    const w1 = new RoomShards(a, { ...options, instanceId: 'w1' });
    const w2 = new RoomShards(b, { ...options, instanceId: 'w2' });
    await Promise.all([w1.start(), w2.start()]);
    await ownedWhen(w1, (owned) => owned.size > 0 && owned.size < rooms.length);
    // With a 60 s interval only the leaving beat can move the rooms within the test.
    w2.stop();
    const owned = await ownedWhen(w1, (o) => o.size === rooms.length);
    expect([...owned].sort()).toEqual([...rooms].sort());
    w1.stop();
  });
});

// The rule of shop-visit-protocol.md over shop-visit-pilot.mjs's records (CANDIDATE=1): per branch, visitors
// counted by retail.analytics in the shops against the true visitors, visitors counted in the emptied rooms,
// and errors = Σ |counted − true| over shops + visitors in the emptied rooms.
//   node plugins/evaluation/pilot/shop-visit-rule.mjs <shops.json> <rooms.json>
import { readFileSync } from 'node:fs';

const [shopsFile, roomsFile] = process.argv.slice(2);
const shops = JSON.parse(readFileSync(shopsFile, 'utf8'));
const rooms = JSON.parse(readFileSync(roomsFile, 'utf8'));
const branches = Object.keys(shops.branches);
const trueVisitors = (shop) => new Set(shop.estimates.flatMap((e) => e.truth.map((t) => t[0]))).size;
const figures = Object.fromEntries(branches.map((b) => {
  const perShop = shops.shops.map((s) => ({ seed: s.seed, true: trueVisitors(s), counted: s.retail[b] }));
  const shopErrors = perShop.reduce((sum, s) => sum + Math.abs(s.counted - s.true), 0);
  const perRoom = rooms.shops.map((r) => ({ room: r.room, condition: r.condition, counted: r.retail[b] }));
  const roomVisitors = perRoom.reduce((sum, r) => sum + r.counted, 0);
  return [b, {
    shopsCounted: perShop.reduce((sum, s) => sum + s.counted, 0),
    shopsTrue: perShop.reduce((sum, s) => sum + s.true, 0),
    shopErrors,
    emptyRoomVisitors: roomVisitors,
    errors: shopErrors + roomVisitors,
    perShop: perShop.map((s) => `${s.seed}: ${s.counted}/${s.true}`).join(', '),
    perRoom: perRoom.map((r) => `${r.room} ${r.condition}: ${r.counted}`).join(', '),
  }];
}));
const candidate = figures.candidate ?? figures.extra;
const verdict = candidate && figures.on ? (candidate.errors < figures.on.errors ? 'the candidate wins (strictly fewer errors)' : 'the candidate does not win') : null;
console.log(JSON.stringify({
  shops: { seeds: shops.seeds, seconds: shops.seconds, cpuSeconds: shops.cpuSeconds, wallSeconds: shops.wallSeconds, load: shops.load },
  rooms: { fresh: rooms.seeds, seconds: rooms.seconds, cpuSeconds: rooms.cpuSeconds, wallSeconds: rooms.wallSeconds, load: rooms.load },
  figures, verdict,
}, null, 1));

// The pilots' caches of simulated validation rooms carry the simulator that made them
// (`simulatorFingerprint`, the hash `wiflow eval`'s cache uses), and a replay refuses a cache made by
// another simulator: after a simulator change it would silently score old rooms. ALLOW_STALE_CACHE=1
// reads it anyway (to reproduce a finding recorded with it), with one line saying so.
import { readFileSync, writeFileSync } from 'node:fs';
import { simulatorFingerprint } from '@wiflow/plugin-pose-tfjs';

/** Write a pilot cache, stamped with the simulator that made it. */
export function writePilotCache(file, cache) {
  writeFileSync(file, JSON.stringify({ simulator: simulatorFingerprint(), ...cache }));
}

/** Read a pilot cache; an error naming the file when another simulator (or an unstamped run) made it. */
export function readPilotCache(file) {
  const cache = JSON.parse(readFileSync(file, 'utf8'));
  const now = simulatorFingerprint();
  if (cache.simulator !== now) {
    const what = `${file} was made by ${cache.simulator ? `simulator ${cache.simulator}` : 'a simulator it does not name (made before caches were stamped)'}, not this one (${now})`;
    if (process.env.ALLOW_STALE_CACHE !== '1') throw new Error(`${what}: re-run its cache command, or set ALLOW_STALE_CACHE=1 to read it anyway`);
    console.error(`${what}: read anyway (ALLOW_STALE_CACHE=1)`);
  }
  return cache;
}

/** One cached peak [x, y, presence, aboveNoise, wallDistance, ...linkExplained] as the tracker's measurement. */
export const measurement = ([x, y, presence, aboveNoise, wallDistance, ...linkExplained]) => ({ x, y, presence, aboveNoise, wallDistance, linkExplained });

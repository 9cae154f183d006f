// confirm21-protocol.md: a rule downstream of `tracker.track`, on its ids (which last through the locator's
// track churn: a re-born locator track is joined to the lost id). A replay-only gate: each id of
// tracker.track's frames gathers the explained energy of the locator peaks it was fed (`explained` on the
// person, e2e-replay.mjs; 0 while tracker.track shows it lost), and it is shown only once
//   - `window`: the mean over its estimates of the last `windowS` s (since its birth when younger) reaches `minExplained`; or
//   - `accumulated`: the sum over its estimates since birth reaches `minExplained` (noise energies × estimates);
//   - either way at once when an estimate it was fed explains at least `strongExplained` (optional);
// once shown, shown until it ends. An id not shown yet is marked tentative (what tracker.track does with
// an id it has not shown), so `reportedPeople` and `phantomsIn` do not count it.

/** A fresh gate for one run: tracker.track's frame in, the frame as shown downstream out. */
export function idGate({ mode, windowS = Infinity, minExplained, strongExplained = Infinity }) {
  if (mode !== 'window' && mode !== 'accumulated') throw new Error(`unknown gate mode ${mode}`);
  const ids = new Map();
  return (frame) => {
    const now = frame.timestamp / 1000;
    const persons = frame.persons.map((p) => {
      if (p.trackStatus === 'tentative' || p.trackStatus === 'ended' || p.trackId == null) return p;
      const e = p.trackStatus === 'active' ? p.explained ?? 0 : 0;
      let s = ids.get(p.trackId);
      if (!s) ids.set(p.trackId, (s = { recent: [], sum: 0, shown: false }));
      if (!s.shown) {
        s.sum += e;
        s.recent.push([now, e]);
        while (s.recent[0][0] <= now - windowS) s.recent.shift();
        const mean = s.recent.reduce((a, [, v]) => a + v, 0) / s.recent.length;
        s.shown = e >= strongExplained || (mode === 'window' ? mean >= minExplained : s.sum >= minExplained);
      }
      return s.shown ? p : { ...p, trackStatus: 'tentative' };
    });
    return { ...frame, persons };
  };
}

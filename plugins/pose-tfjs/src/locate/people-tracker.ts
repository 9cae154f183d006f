import { z } from 'zod';

/**
 * Settings of the tracker inside `pose.locate` (part of `locator.json`): how people are born
 * (evidence over several estimates), followed (constant velocity, Kalman) and let go (sustained
 * absence). Chosen on validation rooms, never on test rooms.
 */
export const PeopleTrackerSettingsSchema = z.object({
  /** A peak farther than this from a track's predicted position is not that track's, metres. */
  gateM: z.number().positive().default(1.2),
  /**
   * Standard deviation of one estimate's floor position, metres. Small: one estimate's error is
   * mostly a bias of the room's geometry that persists between estimates, so smoothing toward the
   * track's past cost accuracy (validation: 0.59 m with 0.05, 0.64 m with 0.3, 0.68 m with 0.5).
   */
  measurementStdM: z.number().positive().default(0.05),
  /** Standard deviation of a person's acceleration, m/s² (walking changes pace and heading slowly). */
  accelerationStd: z.number().positive().default(0.8),
  /** A peak is evidence of a person when its presence (the count head's) is at least this. */
  evidencePresence: z.number().min(0).max(1).default(0.5),
  /** A track is confirmed after this many estimates with evidence … */
  confirmHits: z.number().int().positive().default(2),
  /** … within this many estimates of its birth. */
  confirmWindow: z.number().int().positive().default(4),
  /** A confirmed track dies after this many estimates in a row without evidence. */
  deathMisses: z.number().int().positive().default(4),
  /** Two tracks closer than this are one person (the younger is dropped), metres. */
  mergeM: z.number().nonnegative().default(0.5),
  /**
   * Births against the room's own noise floor: a peak is evidence for a tentative track only when
   * the change energy left before it was taken exceeds the room's empty-room noise energy by this
   * much (natural log of the ratio; an empty room's change is its noise, ≈ 0). The threshold is
   * the room's own reference, not a global count head. Absent: no such test.
   */
  birthAboveNoise: z.number().optional(),
  /** A tentative track needs this presence to count a hit (absent: `evidencePresence`); a confirmed one keeps `evidencePresence`. */
  birthPresence: z.number().min(0).max(1).optional(),
  /**
   * Split suppression: a tentative track born within this distance of a confirmed track (metres)
   * is taken for that person's multipath until it gathers `nearTrackHits` hits in a row window of
   * as many estimates. 0: off.
   */
  nearTrackM: z.number().nonnegative().default(0),
  /** Hits a tentative track near a confirmed one needs (see `nearTrackM`). */
  nearTrackHits: z.number().int().positive().default(4),
  /**
   * Explain-away births: a peak is birth evidence only when the change it explains itself (summed
   * over links, in noise energies; stronger peaks were already projected out by CLEAN) is at least
   * this. A real person's multipath lobe is mostly explained by the person's own peak. Absent: no test.
   */
  birthExplained: z.number().nonnegative().optional(),
  /** Births need independent support: the peak explains at least `birthLinkEnergy` noise energies on this many links. Absent: no test. */
  birthLinks: z.number().int().positive().optional(),
  /** Noise energies a peak must explain on one link to count as that link's support (`birthLinks`). */
  birthLinkEnergy: z.number().nonnegative().default(1),
  /** Births need the peak to explain at least this share of what the estimate's strongest peak explains (a side lobe is weaker). Absent: no test. */
  birthRelative: z.number().min(0).max(1).optional(),
  /**
   * Explained deaths: a confirmed track whose peak fails the birth test (or which has no peak) for
   * this many estimates in a row while another confirmed track holds a stronger peak dies: its
   * support is that person's. Absent: only `deathMisses`.
   */
  explainedDeathMisses: z.number().int().positive().optional(),
  /**
   * Confirmation on accumulated support: a tentative track is confirmed only when, over its hits in
   * the window, its peaks explained on their second-best link at least this many noise energies on
   * average. A lobe's support stays on the link its source dominates; a person's own change
   * reaches a second link now and then. Absent: no test.
   */
  confirmSecondLink: z.number().nonnegative().optional(),
  /**
   * Wall margin for births: a peak closer than this to a wall (metres) is no birth evidence. A body's
   * centre is not in the wall, while the image's edge cells gather change from paths beyond it
   * (validation: half of the extra people of one-person rooms sit within 0.35 m of a wall, 6 % of
   * true people do). Absent: no test.
   */
  birthWallM: z.number().nonnegative().optional(),
  /** Wall margin for confirmed tracks: a peak closer than this to a wall is no evidence that keeps one alive. Absent: no test. */
  keepWallM: z.number().nonnegative().optional(),
  /** Confirmation on accumulated strength: the mean, over its hits, of the peak's share of the strongest peak's explained energy. Absent: no test. */
  confirmRelative: z.number().min(0).max(1).optional(),
  /**
   * Lived-in rooms (opt-in; confirm20-protocol.md): a confirmed track is reported (a person
   * downstream) only once the change at its position is held over seconds. A fan, a resting cat,
   * a door or drift since the reference make peaks at the noise floor that come and go; a person,
   * even sitting still, keeps explaining change where they are. The cost is a delay before a weak
   * person is shown. Absent: every confirmed track is reported at once.
   */
  reportExplained: z.object({
    /** Seconds of estimates the position's explained energy is averaged over (shorter at a stream's start). */
    windowS: z.number().positive(),
    /** The mean, over the window, of the explained energy (noise energies, summed over links) of the strongest peak within `radiusM` of the track (0 where none) needed to report it. */
    minMean: z.number().nonnegative(),
    /** A track whose hits from birth to confirmation explained at least this on average is reported at once. */
    strongBirth: z.number().nonnegative(),
    /** How near a peak must be to the track's position to count, metres. */
    radiusM: z.number().positive().default(0.5),
  }).optional(),
});

/** Tracker settings. */
export type PeopleTrackerSettings = z.output<typeof PeopleTrackerSettingsSchema>;

/** One peak of an estimate: floor position and the count head's presence. */
export interface TrackerMeasurement {
  x: number;
  y: number;
  presence: number;
  /**
   * Natural log of the change energy left before this peak was taken against the room's
   * empty-room noise energy (`birthAboveNoise`); absent: the test passes.
   */
  aboveNoise?: number;
  /** Distance from the peak to the room's nearest wall, metres (absent: not known). */
  wallDistance?: number;
  /** Per link: change energy this peak explains over the link's noise energy (absent: not known). */
  linkExplained?: readonly number[];
}

/** A person the tracker follows. */
export interface TrackedPerson {
  id: number;
  x: number;
  y: number;
  /** Confirmed and reported (a person), or not yet: tentative, or confirmed and held back by `reportExplained`. */
  confirmed: boolean;
  /** Share of the last `confirmWindow` estimates with evidence of this person. */
  support: number;
  /** Index of the peak this estimate gave the track (peaks come strongest first); -1: none. */
  peak: number;
}

interface Track {
  id: number;
  /** State per axis: position, velocity; covariance [pp, pv, vv] (the same for both axes). */
  x: number; vx: number;
  y: number; vy: number;
  pp: number; pv: number; vv: number;
  age: number;
  hits: number;
  misses: number;
  recent: boolean[];
  /** Per entry of `recent` with evidence: the peak's second-best link and share of the strongest peak (NaN: unknown). */
  support: { second: number; relative: number }[];
  confirmed: boolean;
  peak: number;
  /** Born within `nearTrackM` of a confirmed track: needs `nearTrackHits` to be confirmed. */
  nearBirth: boolean;
  /** Estimates in a row whose peak failed the birth test (`explainedDeathMisses`). */
  weak: number;
  /** Shown as a person (`reportExplained`: once held; without it, when confirmed). */
  reported: boolean;
  /** Explained energy of its hits until confirmation, summed, and how many carried it (`reportExplained`'s strong birth). */
  birthExplained: number;
  birthExplainedHits: number;
}

/** One past estimate's peaks, as `reportExplained` reads them: where, and the energy each explains. */
interface PastPeaks {
  time: number;
  peaks: { x: number; y: number; explained: number }[];
}

/**
 * A multi-person tracker over the estimates of one room: constant-velocity Kalman tracks,
 * nearest-neighbour association inside a gate, births from peaks with evidence that come back
 * `confirmHits` times within `confirmWindow` estimates, deaths after `deathMisses` estimates
 * without evidence. The confirmed tracks are the people (and so the count): a single noisy
 * estimate neither makes nor removes a person.
 */
export class PeopleTracker {
  #tracks: Track[] = [];
  #nextId = 1;
  #lastTime: number | null = null;
  /** The estimates of the last `reportExplained.windowS` seconds (empty without it). */
  #past: PastPeaks[] = [];

  constructor(readonly settings: PeopleTrackerSettings, readonly maxTracks: number) {}

  /** Forget everyone (a gap in the stream). */
  reset(): void {
    this.#tracks = [];
    this.#lastTime = null;
    this.#past = [];
  }

  /** Advance to `time` (seconds; frames carry milliseconds) with one estimate's peaks; returns the tracks, confirmed first. */
  update(time: number, peaks: readonly TrackerMeasurement[]): TrackedPerson[] {
    const s = this.settings;
    const dt = this.#lastTime === null ? 0 : Math.max(0, time - this.#lastTime);
    this.#lastTime = time;
    const q = s.accelerationStd ** 2;
    for (const t of this.#tracks) {
      // x ← x + v dt; P ← F P Fᵀ + Q (white acceleration).
      t.x += t.vx * dt; t.y += t.vy * dt;
      const pp = t.pp + 2 * dt * t.pv + dt * dt * t.vv + (q * dt ** 4) / 4;
      const pv = t.pv + dt * t.vv + (q * dt ** 3) / 2;
      const vv = t.vv + q * dt * dt;
      t.pp = pp; t.pv = pv; t.vv = vv;
      t.age++;
      t.peak = -1;
    }
    // Nearest pairs first, each track and peak used once; confirmed tracks win ties of distance.
    const pairs: [number, number, number][] = [];
    this.#tracks.forEach((t, ti) => peaks.forEach((p, pi) => {
      const d = Math.hypot(p.x - t.x, p.y - t.y);
      if (d <= s.gateM) pairs.push([d - (t.confirmed ? 1e-6 : 0), ti, pi]);
    }));
    pairs.sort((a, b) => a[0] - b[0]);
    const trackUsed = new Set<number>(), peakUsed = new Set<number>();
    for (const [, ti, pi] of pairs) {
      if (trackUsed.has(ti) || peakUsed.has(pi)) continue;
      trackUsed.add(ti); peakUsed.add(pi);
      const t = this.#tracks[ti], p = peaks[pi];
      t.peak = pi;
      const evidence = t.confirmed ? p.presence >= s.evidencePresence && !(s.keepWallM !== undefined && p.wallDistance !== undefined && p.wallDistance < s.keepWallM) : this.#birthEvidence(p, peaks);
      if (t.confirmed) t.weak = this.#birthEvidence(p, peaks) ? 0 : t.weak + 1;
      // A peak without evidence still says where the change is, with less weight.
      const r = s.measurementStdM ** 2 / (evidence ? 1 : 0.25);
      const k1 = t.pp / (t.pp + r), k2 = t.pv / (t.pp + r);
      const ex = p.x - t.x, ey = p.y - t.y;
      t.x += k1 * ex; t.y += k1 * ey; t.vx += k2 * ex; t.vy += k2 * ey;
      const pp = (1 - k1) * t.pp, pv = (1 - k1) * t.pv, vv = t.vv - k2 * t.pv;
      t.pp = pp; t.pv = pv; t.vv = vv;
      this.#record(t, evidence, p, peaks);
    }
    this.#tracks.forEach((t, ti) => { if (!trackUsed.has(ti)) { t.weak++; this.#record(t, false); } });
    // Births: peaks with evidence that no track explains.
    peaks.forEach((p, pi) => {
      if (peakUsed.has(pi) || !this.#birthEvidence(p, peaks) || this.#tracks.length >= this.maxTracks * 2) return;
      const r = s.measurementStdM ** 2;
      const nearBirth = s.nearTrackM > 0 && this.#tracks.some((k) => k.confirmed && Math.hypot(k.x - p.x, k.y - p.y) < s.nearTrackM);
      const t: Track = { id: this.#nextId++, x: p.x, y: p.y, vx: 0, vy: 0, pp: r, pv: 0, vv: 1, age: 0, hits: 0, misses: 0, recent: [], support: [], confirmed: false, peak: pi, nearBirth, weak: 0, reported: false, birthExplained: 0, birthExplainedHits: 0 };
      this.#record(t, true, p, peaks);
      this.#tracks.push(t);
    });
    // Deaths: confirmed tracks after sustained absence; tentative ones that can no longer be confirmed.
    // Explained deaths: a confirmed track whose support another, stronger confirmed track explains.
    const explainedDead = (t: Track) => s.explainedDeathMisses !== undefined && t.weak >= s.explainedDeathMisses
      && this.#tracks.some((k) => k !== t && k.confirmed && k.peak >= 0 && (t.peak < 0 || k.peak < t.peak));
    this.#tracks = this.#tracks.filter((t) => (t.confirmed ? t.misses < s.deathMisses && !explainedDead(t) : t.age < this.#window(t)));
    // Merges: two tracks on one person; the older (or the confirmed) one stays.
    this.#tracks.sort((a, b) => Number(b.confirmed) - Number(a.confirmed) || b.age - a.age);
    const kept: Track[] = [];
    for (const t of this.#tracks) if (kept.every((k) => Math.hypot(k.x - t.x, k.y - t.y) >= s.mergeM)) kept.push(t);
    // At most maxTracks confirmed people: the best supported stay confirmed.
    let confirmed = 0;
    for (const t of kept) if (t.confirmed && ++confirmed > this.maxTracks) t.confirmed = false;
    this.#tracks = kept;
    this.#report(time, peaks);
    // Confirmed first; within each, the track of the strongest peak first (what the image says now).
    const rank = (t: Track) => (t.peak < 0 ? peaks.length : t.peak);
    return [...kept].sort((a, b) => Number(b.confirmed) - Number(a.confirmed) || rank(a) - rank(b))
      .map((t) => ({ id: t.id, x: t.x, y: t.y, confirmed: t.confirmed && t.reported, support: Math.min(1, t.recent.filter(Boolean).length / s.confirmWindow), peak: t.peak }));
  }

  /**
   * Which confirmed tracks are shown (`reportExplained`): those strong at birth, and those whose
   * position has explained enough change on average over the window; once shown, until they die.
   */
  #report(time: number, peaks: readonly TrackerMeasurement[]): void {
    const rule = this.settings.reportExplained;
    if (!rule) {
      for (const t of this.#tracks) t.reported ||= t.confirmed;
      return;
    }
    const explainedOf = (p: TrackerMeasurement) => (p.linkExplained ? p.linkExplained.reduce((a, b) => a + b, 0) : Number.POSITIVE_INFINITY);
    this.#past.push({ time, peaks: peaks.map((p) => ({ x: p.x, y: p.y, explained: explainedOf(p) })) });
    while (this.#past.length && this.#past[0].time <= time - rule.windowS) this.#past.shift();
    for (const t of this.#tracks) {
      if (!t.confirmed || t.reported) continue;
      if (t.birthExplainedHits > 0 && t.birthExplained / t.birthExplainedHits >= rule.strongBirth) { t.reported = true; continue; }
      // Per estimate the strongest peak near the track's position now (0 where none): a person there explains change in most of them.
      const held = this.#past.reduce((sum, e) => sum + e.peaks.reduce((best, p) => (Math.hypot(p.x - t.x, p.y - t.y) <= rule.radiusM ? Math.max(best, p.explained) : best), 0), 0);
      t.reported = held / this.#past.length >= rule.minMean;
    }
  }

  /** Whether a peak is evidence enough to start or grow a tentative track. */
  #birthEvidence(p: TrackerMeasurement, peaks: readonly TrackerMeasurement[]): boolean {
    const s = this.settings;
    if (p.presence < (s.birthPresence ?? s.evidencePresence)) return false;
    if (s.birthAboveNoise !== undefined && p.aboveNoise !== undefined && p.aboveNoise < s.birthAboveNoise) return false;
    if (s.birthWallM !== undefined && p.wallDistance !== undefined && p.wallDistance < s.birthWallM) return false;
    const links = p.linkExplained;
    if (!links) return true;
    const own = links.reduce((a, b) => a + b, 0);
    if (s.birthExplained !== undefined && own < s.birthExplained) return false;
    if (s.birthLinks !== undefined && links.filter((v) => v >= s.birthLinkEnergy).length < s.birthLinks) return false;
    if (s.birthRelative !== undefined) {
      const strongest = peaks[0]?.linkExplained?.reduce((a, b) => a + b, 0) ?? own;
      if (own < s.birthRelative * strongest) return false;
    }
    return true;
  }

  /** Estimates a tentative track has to gather its hits in. */
  #window(t: Track): number {
    return t.nearBirth ? Math.max(this.settings.confirmWindow, this.settings.nearTrackHits) : this.settings.confirmWindow;
  }

  #record(t: Track, evidence: boolean, p?: TrackerMeasurement, peaks?: readonly TrackerMeasurement[]): void {
    const s = this.settings;
    const window = this.#window(t);
    t.recent.push(evidence);
    t.support.push(evidence && p ? peakSupport(p, peaks ?? []) : { second: Number.NaN, relative: Number.NaN });
    while (t.recent.length > Math.max(window, s.confirmWindow)) { t.recent.shift(); t.support.shift(); }
    if (evidence) { t.hits++; t.misses = 0; } else t.misses++;
    if (evidence && p && !t.confirmed) {
      // A peak without per-link figures passes, as it passes the birth tests.
      t.birthExplained += p.linkExplained ? p.linkExplained.reduce((a, b) => a + b, 0) : Number.POSITIVE_INFINITY;
      t.birthExplainedHits++;
    }
    const needed = t.nearBirth ? s.nearTrackHits : s.confirmHits;
    if (!t.confirmed && t.recent.filter(Boolean).length >= needed && this.#accumulated(t)) t.confirmed = true;
  }

  /** Whether a tentative track's hits, together, carry the support confirmation asks for (`confirmSecondLink`, `confirmRelative`). */
  #accumulated(t: Track): boolean {
    const s = this.settings;
    const known = t.support.filter((x) => !Number.isNaN(x.second));
    if (!known.length) return true;
    const mean = (key: 'second' | 'relative') => known.reduce((a, x) => a + x[key], 0) / known.length;
    if (s.confirmSecondLink !== undefined && mean('second') < s.confirmSecondLink) return false;
    return s.confirmRelative === undefined || mean('relative') >= s.confirmRelative;
  }
}

/** A peak's second-best link and share of the estimate's strongest peak, in explained energy (NaN without per-link figures). */
function peakSupport(p: TrackerMeasurement, peaks: readonly TrackerMeasurement[]): { second: number; relative: number } {
  if (!p.linkExplained) return { second: Number.NaN, relative: Number.NaN };
  const sorted = [...p.linkExplained].sort((a, b) => b - a);
  const own = p.linkExplained.reduce((a, b) => a + b, 0);
  const strongest = peaks[0]?.linkExplained?.reduce((a, b) => a + b, 0) ?? own;
  return { second: sorted[1] ?? 0, relative: Math.min(1, own / Math.max(1e-12, strongest)) };
}

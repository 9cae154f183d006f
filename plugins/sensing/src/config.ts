import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { LogisticModel } from './model/logistic.js';

/** Settings of the per-link sensing; defaults are the ones evaluated in docs/sensing.md. */
export const SensingConfigSchema = z.object({
  /** Rate of the time grid packets are averaged onto (Hz); irregular radios land on the same grid. */
  gridRateHz: z.number().min(2).max(100).default(10),
  /** Seconds of grid the motion features look back over. */
  motionWindowSeconds: z.number().min(1).max(10).default(2),
  /** Longest stretch of still seconds the breathing spectrum uses. */
  breathingWindowSeconds: z.number().min(10).max(120).default(30),
  /** Fewer still seconds than this: no breathing rate (`too_short`). */
  breathingMinSeconds: z.number().min(8).max(120).default(20),
  /** Breathing band in breaths per minute. */
  breathingMinBpm: z.number().min(2).max(30).default(6),
  breathingMaxBpm: z.number().min(10).max(90).default(40),
  /** Peak-to-median ratio of the breathing spectrum below which no rate is given (`no_periodicity`). */
  breathingMinQuality: z.number().min(1).default(4),
  /**
   * Peak-to-median ratio below which a rate is not shown (null, `no_periodicity`) though presence still counts
   * the line (0: off). A weak line is a guess: at 4.5 the share of rated still seconds within 2 bpm rose
   * 0.859 → 0.873 on 18 simulated validation rooms, for 0.019 fewer still seconds rated
   * (plugins/sensing/pilot/breathrate-protocol.md).
   */
  breathingReportQuality: z.number().min(0).default(4.5),
  /** Packets per second below which breathing is not attempted (`rate_too_low`). */
  minPacketRateHz: z.number().min(0.5).default(2),
  /** A still second counts as present this long after the last moving second (once someone is present). */
  presenceHoldSeconds: z.number().min(0).default(300),
  /** Person-sized moving seconds (`presenceEntryFloorRatio`) within `presenceEntryWindowSeconds` that start presence (someone arriving); fewer is a door, a pet or a glitch. */
  presenceEntryMovingSeconds: z.number().int().min(1).default(4),
  presenceEntryWindowSeconds: z.number().int().min(1).max(120).default(10),
  /** Seconds with a breathing rate in the last `presenceBreathingWindowSeconds` that start presence with no arrival seen (0: never; a fan's aliased line passes for breathing). */
  presenceBreathingStartSeconds: z.number().int().min(0).default(20),
  presenceBreathingWindowSeconds: z.number().int().min(1).max(600).default(30),
  /**
   * Breathing rates above this (bpm) never start presence, only keep it (null: any rate in the band). Off: at
   * 25 bpm it removed fans' aliased lines (27–35 bpm) on the simulated validation rooms but cost still-person
   * recall (0.967 → 0.914 on 18 validation rooms), since a still person's spectrum can peak that high too.
   */
  presenceBreathingStartMaxBpm: z.number().min(1).nullable().default(null),
  /**
   * Person-sized movement: a moving second counts toward an entry only when the link's pair spread is at
   * least this many times its own floor (`floorWindowSeconds`; 0: any moving second). On 18 simulated
   * validation rooms an empty room's moving seconds read a median 1.2 × (a door 2.4 ×, a cat 1.5 ×), a person
   * walking a median 3 × (10th percentile 1.7 ×), and 4 such seconds in 10 make an entry. Not raised (presence
   * round 5, pilot/presence5-protocol.md): 3 or 4 cut false presence 56.5 → 48.4 or 46.4 per day on 36 simulated
   * validation rooms but missed people who walk in once the floor is trusted (recall from arrival 0.83 → 0.73).
   */
  presenceEntryFloorRatio: z.number().min(0).default(2),
  /**
   * The same for a moving second that keeps a present link present and restarts its hold (0: any). Off: at 2
   * it cost still-person recall (a still person's fidgets are small) for no fewer episodes.
   */
  presenceKeepFloorRatio: z.number().min(0).default(0),
  /**
   * Seconds of history before the floor is trusted; until then every moving second is person-sized. Most false
   * presence starts here (a link whose phase between chains is noisy reads moving from its first second), but
   * reviewing the warm-up's entries against the floor learned by its end lost still people and split episodes
   * (presence round 5, pilot/presence5-protocol.md); not shipped.
   */
  presenceFloorWarmupSeconds: z.number().int().min(0).default(30),
  /**
   * With an empty-room reference (`--reference`): the link's floor starts from the reference's seconds, so it is
   * trusted from the first second (no warm-up). Without a reference it changes nothing. Off (presence round 6,
   * pilot/refloor-protocol.md): on 12 simulated validation rooms false presence 54.5 → 48.4 per day (9 → 8
   * episodes, interval reaching 0), on 12 fresh ones 48.4 → 48.4 with walk-in recall 0.891 → 0.819. The simulated
   * reference (fan off, cat away, door at rest) is quieter than the running room, whose links then still start
   * presence in their first seconds.
   */
  presenceReferenceFloor: z.boolean().default(false),
  /**
   * With an empty-room reference: what a spread above `presenceReferenceLevelRatio` × the empty room's does.
   * 'start' starts and keeps presence (basis `level`); 'keep' only keeps a present link present past the hold;
   * 'off' ignores the level. Without a reference it changes nothing. On 12 simulated validation rooms neither
   * 'start' nor 'keep' found one more still second (presence round 6): a still person the breathing does not show
   * leaves the spread at 1.02 × the reference's, the empty room at 1.00 ×; 'start' raised the false presence
   * before a walk-in 163.5 → 490.4 per day. 'start' stays the default so `--reference` behaves as before.
   */
  presenceReferenceLevel: z.enum(['start', 'keep', 'off']).default('start'),
  presenceReferenceLevelRatio: z.number().min(1).default(2),
  /**
   * Peak-to-median of the breathing spectrum (below `breathingMinQuality`, so no rate) at which a present
   * link's faint breathing line keeps it present `presenceFaintKeepSeconds` past the hold. Off by default
   * (0 s): on the simulated test rooms it kept 10 of 12 rooms present for the whole 6 min after their person
   * left, since empty channels show such lines too (docs/sensing.md, still round).
   */
  presenceFaintQuality: z.number().min(1).default(2.5),
  presenceFaintKeepSeconds: z.number().int().min(0).default(0),
  /**
   * Steady line: a present link stays present past the hold while, in at least `presenceSteadyKeepShare` of the
   * last `presenceSteadyKeepSeconds` seconds, its breathing spectrum peaked (however weakly) within
   * `presenceSteadyToleranceBpm` of one rate (0 s: off). A still person's faint breathing sits still; noise
   * wanders. On 30 simulated validation rooms (pilot/presence3-protocol.md): recall 0.933 → 0.936, false presence
   * 46.0 → 41.2 per day (episodes merged, not fewer starts), after leaving 357 → 358 s (median). Widened from
   * ±0.5 bpm in 0.7 of the seconds to ±2 bpm in 0.5 once simulated breathing varied breath by breath (a person's
   * line wanders): on the 6 validation rooms (pilot/simbreath-keep-protocol.md) recall 0.799 → 0.912, false
   * presence 48.4 → 48.4 per day, after leaving 364 → 364 s.
   */
  presenceSteadyKeepSeconds: z.number().int().min(0).max(600).default(120),
  presenceSteadyKeepShare: z.number().min(0.1).max(1).default(0.5),
  presenceSteadyToleranceBpm: z.number().min(0).max(5).default(2),
  /**
   * Machine line: a second whose breathing spectrum peak had, in at least `presenceMachineLineShare` of the last
   * `presenceMachineLineSeconds` seconds, a peak within `presenceMachineLineToleranceBpm` of it is a machine's line
   * (a ceiling fan's blade-pass harmonic aliased by the grid keeps one exact rate for minutes; breath wanders): its
   * rate neither starts nor keeps presence, and the second keeps nothing by the steady line (0 s: off). On 42
   * simulated validation rooms (pilot/presence4-protocol.md, pilot/sim_presence4.py), share of the last 120 s
   * within 0.5 bpm of the second's rate: fan lines median 0.78, a still person 0.16. Chosen there: recall
   * 0.926 → 0.924, false presence 46.7 → 43.3 per day, after leaving 360 → 296 s (median). The 12 test rooms, scored
   * once after the choice, did not bear it out: recall 0.914 → 0.830 (two sitting rooms with a fan lost when the
   * hold ran out), false presence 48.4 → 48.4 per day, after leaving 361 → 360 s (docs/sensing.md, round 4).
   * Reconsidered on 24 fresh validation rooms built for that case (a still person with a fan in every room, half
   * breathing at rateCv 0.05–0.10; protocol addendum B, pilot/sim_presence4b.mjs): off → on recall 0.947 → 0.944
   * (52 s in one room, under the 0.005 that would have turned it off), false presence 54.5 → 51.4 per day, so it
   * stays on. Set 0 where a still person in a room with a fan must not be lost once the hold runs out (the test
   * rooms' case).
   */
  presenceMachineLineSeconds: z.number().int().min(0).max(600).default(120),
  presenceMachineLineShare: z.number().min(0.1).max(1).default(0.5),
  presenceMachineLineToleranceBpm: z.number().min(0).max(5).default(0.5),
  /** Subcarrier groups per stream for the breathing channels. */
  groupsPerStream: z.number().int().min(1).max(64).default(8),
  /** Frames looked at before locking the link's packet kind (the most common shape and PHY mode). */
  kindProbeFrames: z.number().int().min(1).max(1000).default(40),
  /** A fall candidate's movement peak must be this many times the context's 20th percentile. */
  fallPeakRatio: z.number().min(1).default(2),
  /**
   * Movement guard (issue 22, pilot/fallguard-protocol.md): a link raises a fall only if its state reads
   * `moving` in at least one second from 2 s before to 3 s after the fall (the window the evaluations match
   * falls in). A fall is a movement; a link that saw no movement saw no fall. Off (2026-11-28): it passed its
   * pilot's bar (real quiet rooms and still people 8 → 0 false falls in 7,629 s; fresh simulated validation rooms
   * 204–215 unchanged at 1/36 falls, 6.8 false alarms per day), but on the real falls, scored once after the
   * choice, sensitivity fell 74 % → 26 % (most real fall clips never read `moving`: presence does not start),
   * so it is off: losing real falls costs more than the false falls it removes (docs/sensing.md, "Fall guard").
   */
  fallMovementGuard: z.boolean().default(false),
  /**
   * Full context (issue 22, pilot/fallguard-protocol.md, pilot/fallctx-protocol.md): a fall detector judges a peak
   * only when the link's segment holds the whole span its features read before the peak (velocity profile 3 s,
   * burst 8 s) and, at end of input, after it (5 s, 4 s); otherwise a peak in a capture's first seconds is judged
   * against nothing. On since 2026-11-28: chosen on validation data before any test figure (real quiet rooms and
   * still people 8 → 1 false fall in 7,629 s; fresh simulated validation rooms 216–227 3.4 → 0 false alarms per
   * day, falls unchanged), then on the real falls, scored once, the velocity profile (the Intel 5300 path, the
   * protocol's gate) 74 % → 80 % at 6.4 % → 6.1 % false alarms; the burst detector (other radios) 54 % → 48 % at
   * 6.8 % → 4.5 %, because those clips are cut 6–7.5 s after their start, under its 8 s (live, a fall has its
   * context except in a link's first 8 s). The lead's decision (docs/sensing.md, "Fall context").
   */
  fallFullContext: z.boolean().default(true),
  /**
   * Motion guard (issue 22, pilot/fallctx-protocol.md): a link raises a fall only if its output `motion` (the
   * motion classifier's probability) reads ≥ 0.5 in at least one second from 2 s before to 3 s after the fall.
   * Unlike the movement guard it needs no presence, so a fall by a person the link never saw arrive can pass.
   * Off (2026-11-28): it left 6 of the 8 false falls of real quiet rooms and still people (a link's motion reads
   * high in its first seconds, where those peaks are) and lost real falls (profile 37 → 36, burst 27 → 24 of 50).
   */
  fallMotionGuard: z.boolean().default(false),
  /** Seconds of history the link's own movement floor is learned over (its 10th percentile; see `pairFloor`). */
  floorWindowSeconds: z.number().min(10).max(3600).default(300),
});

/** Settings of the per-link sensing. */
export type SensingConfig = z.infer<typeof SensingConfigSchema>;

/** The learned parameters: motion models per radio family and the fall classifier. */
export interface SensingModels {
  /** Motion classifiers by radio family ('intel5300', 'int8' for ESP32 and the rest). */
  motion: Record<string, LogisticModel>;
  /**
   * Motion classifiers for links slower than their family's captures were: fitted on the same captures thinned
   * (1 packet in k kept, k = 2–20), since `motion`'s models, fitted at the captures' own rate, read no movement
   * at a quarter of it (pilot/packet_rate.mjs). A link whose packets per second over the last 10 s are under
   * `motionSlowBelow[family]` uses it.
   */
  motionSlow?: Record<string, LogisticModel>;
  /** Packets per second under which a family's link uses `motionSlow` (the geometric middle of the captures' rate and the fastest thinned one). */
  motionSlowBelow?: Record<string, number>;
  /**
   * A family whose links keep their own quiet floor of the motion inputs (`MotionFloor`) over their last `seconds`
   * seconds. Its motion models may then read the inputs minus a quantile of that floor (`MOTION_FLOOR_FEATURES`, the
   * quantile the model's `floorQuantile`); as shipped, both ESP32 models do.
   */
  motionFloor?: Record<string, { seconds: number }>;
  /** Fall classifier over a movement burst's features. */
  fall: LogisticModel;
  /** Fall classifiers of radio families that have their own (simulated radios); the others use `fall`. */
  fallByFamily?: Record<string, LogisticModel>;
  /**
   * Which per-second movement series a family's fall candidates are read from: `spread` (the normalised
   * amplitudes; the default, what the real-capture models were fitted on) or `pairSpread` (the phase between
   * receive chains, for radios whose bodies change the whole band alike, as the simulator's do).
   */
  fallSignalByFamily?: Record<string, 'spread' | 'pairSpread'>;
  /**
   * Fall classifier over the time–velocity profile (src/falls/), for Intel 5300 links with several receive
   * chains: where it is set, their falls come from it instead of `fall`.
   */
  profileFall?: LogisticModel;
  /**
   * Which channels a family's breathing spectrum reads: `all` (amplitude groups and, with several receive
   * chains, the conjugate products; the default) or `pairs` (the conjugate products only, for radios whose
   * bodies change the whole band alike, so the normalised amplitudes carry no chest motion).
   */
  breathingChannelsByFamily?: Record<string, 'all' | 'pairs'>;
}

/** Estimator id of this package's sensing. */
export const SENSING_ESTIMATOR_ID = 'wiflow-sense-v1';

/** First 16 hex digits of the SHA-256 of the configuration and the models: identifies what produced a frame. */
export function sensingConfigHash(config: SensingConfig, models: SensingModels): string {
  return createHash('sha256').update(JSON.stringify({ config, models })).digest('hex').slice(0, 16);
}

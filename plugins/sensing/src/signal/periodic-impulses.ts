/** Settings of `periodicImpulses`; the defaults are the ones evaluated in docs/sensing.md. */
export interface PeriodicImpulseOptions {
  /** A slot is an outlier when its step exceeds the median by this many robust standard deviations (1.4826 × MAD). */
  outlierSigmas?: number;
  /** Outlier slots closer than this (seconds) belong to one event. */
  mergeSeconds?: number;
  /** Shortest period looked for (seconds): shorter ones are movement, not a device's housekeeping. */
  minPeriodSeconds?: number;
  /** How far (seconds) an event may sit from where the period puts it. */
  toleranceSeconds?: number;
  /** Fraction of the events that must have another event one or two periods before or after them (at least 3 must). */
  minMatchFraction?: number;
}

/** A periodic train of short disturbances found in a slot-step series. */
export interface PeriodicImpulses {
  /** Seconds between disturbances. */
  periodSeconds: number;
  /** Disturbances found in the window. */
  events: number;
}

/**
 * Whether the slot-to-slot steps of a still link hold short disturbances that recur at one period: the ESP32
 * breathing captures show a burst of about 1 s every 6.0–6.2 s in every take (apnea takes too), whose spectrum
 * is a comb at multiples of ≈ 9.85 bpm that a breathing estimate would report as a rate. Chest motion changes
 * the channel smoothly and never makes outlier steps, so it is not mistaken for this; a fan or other steady
 * rotation is not impulsive either (the comb rule in `breathing-spectrum.ts` covers what is).
 * `steps` holds `length` values, oldest first, at `rateHz`.
 */
export function periodicImpulses(steps: ArrayLike<number>, length: number, rateHz: number, options: PeriodicImpulseOptions = {}): PeriodicImpulses | null {
  const sigmas = options.outlierSigmas ?? 5;
  const merge = Math.round((options.mergeSeconds ?? 1.5) * rateHz);
  const minLag = Math.round((options.minPeriodSeconds ?? 2) * rateHz);
  const tolerance = Math.max(1, Math.round((options.toleranceSeconds ?? 0.6) * rateHz));
  const minFraction = options.minMatchFraction ?? 0.75;
  if (length < 2 * minLag) return null;
  const sorted = Float64Array.from({ length }, (_, i) => steps[i]).sort();
  const median = sorted[length >> 1];
  for (let i = 0; i < length; i++) sorted[i] = Math.abs(sorted[i] - median);
  sorted.sort();
  const spread = 1.4826 * sorted[length >> 1];
  // A series with no spread (every slot lost or held) has no outliers to speak of.
  if (!(spread > 0)) return null;
  const threshold = median + sigmas * spread;
  const events: number[] = [];
  let lastOutlier = -Infinity;
  for (let i = 0; i < length; i++) {
    if (steps[i] <= threshold) continue;
    if (i - lastOutlier > merge) events.push(i);
    lastOutlier = i;
  }
  if (events.length < 3) return null;
  let best: PeriodicImpulses | null = null;
  let bestFraction = 0;
  const near = (at: number) => events.some((f) => Math.abs(f - at) <= tolerance);
  for (let a = 0; a < events.length; a++) {
    for (let b = a + 1; b < events.length; b++) {
      const lag = events[b] - events[a];
      if (lag < minLag) continue;
      // An event is on the train when another sits one or two periods before or after it (a weak disturbance can
      // stay under the outlier line, leaving a gap of two periods).
      let onTrain = 0;
      for (const e of events) if (near(e - lag) || near(e + lag) || near(e - 2 * lag) || near(e + 2 * lag)) onTrain++;
      const fraction = onTrain / events.length;
      if (onTrain >= 3 && fraction >= minFraction && (fraction > bestFraction || (fraction === bestFraction && best !== null && lag / rateHz < best.periodSeconds))) {
        best = { periodSeconds: lag / rateHz, events: events.length };
        bestFraction = fraction;
      }
    }
  }
  if (!best) return null;
  // One pair's lag carries the jitter of two event starts; every pair of events a whole number of periods apart
  // together pins the period down (least squares through the origin: Σ lag / Σ periods).
  const lag = best.periodSeconds * rateHz;
  let lags = 0;
  let periods = 0;
  for (let a = 0; a < events.length; a++) {
    for (let b = a + 1; b < events.length; b++) {
      const d = events[b] - events[a];
      const m = Math.round(d / lag);
      if (m >= 1 && Math.abs(d - m * lag) <= tolerance) {
        lags += d;
        periods += m;
      }
    }
  }
  return { periodSeconds: lags / periods / rateHz, events: events.length };
}

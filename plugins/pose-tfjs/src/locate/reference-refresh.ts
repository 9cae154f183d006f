import type { CsiFrame } from '@wiflow/core';
import { z } from 'zod';
import { linkKey } from './reference-check.js';
import { ReferenceRecorder, type EmptyRoomReference, type LinkReference } from './reference.js';
import type { StillSecond } from './reference-staleness.js';

/** Settings of the automatic empty-room reference refresh (`pose.locate`'s `referenceRefresh`). */
export const RefreshSettingsSchema = z.object({
  /** Off by default: autoref-protocol.md measured it (models/wiflow-locate-v2/FINDINGS.md, "Automatic reference refresh"). */
  enabled: z.boolean().default(false).describe('re-learn a link\'s empty-room reference by itself when the room has been judged empty and still for emptySeconds'),
  emptySeconds: z.number().int().min(10).default(60).describe('seconds in a row a link must be still and the room judged empty by every judge before the link is refreshed'),
  maxChangeNoiseFloors: z.number().positive().default(50).describe("no refresh when the stretch differs from the current reference by more than this (the detector's figure, after the locator's gain per chain where it has one): a refresh is for drift, not for a body or a rebuilt room"),
  packetsPerSecond: z.number().int().min(1).default(10).describe('packets a second and link recorded into the new reference (the others skipped)'),
});

/** Settings of the automatic reference refresh. */
export type RefreshSettings = z.output<typeof RefreshSettingsSchema>;

/** A source of evidence that the room is empty (`locator`: it reported nobody; `sensing`: `sense.room` said `empty`). */
export type EmptinessJudge = 'locator' | 'sensing';

/** One version of a room's reference: the recorded one is version 1, each refresh adds one. */
export interface ReferenceVersion {
  version: number;
  /** Time (ms) it was made; null for the one the room started with. */
  at: number | null;
  /** The links it replaced (none for the first). */
  links: string[];
  /** Why it was made, in words. */
  reason: string;
}

/** What `ReferenceRefresh` reports of a room (the status's `refresh`). */
export interface RefreshState {
  enabled: boolean;
  version: number;
  /** Time (ms) of the last refresh; null if none. */
  refreshedAt: number | null;
  /** Why the last version was made. */
  reason: string;
  /** The judges every second of a stretch needed. */
  judges: EmptinessJudge[];
  /** Per link: seconds of the stretch now (still, judged empty, small change). */
  links: { link: string; stretchSeconds: number; refreshedAt: number | null }[];
  /** Older versions kept for rollback, newest first (the current one is `version`). */
  history: ReferenceVersion[];
}

interface LinkStretch {
  recorder: ReferenceRecorder | null;
  lastRecordedMs: number;
  seconds: number;
  /** Time (ms) of the last second counted. */
  endMs: number;
  /** Its change against the reference (noise floors). */
  lastChange: number;
  refreshedAt: number | null;
}

/** Versions kept for rollback. */
const KEPT_VERSIONS = 5;

/**
 * Re-learns a room's empty-room reference link by link while the room is empty and still, so
 * that slow static drift (temperature, humidity: minutes to days) does not stay in the locator's
 * image as a phantom.
 *
 * A link is refreshed once `emptySeconds` of its seconds in a row were (1) still by the
 * stale-reference detector's criterion (`StillSecond.still`: nothing smooth over subcarriers
 * changing, so nobody moving, not even breathing above the noise), (2) empty by every judge
 * that has spoken (`judge`): the locator reported nobody, and, where the pipeline has sensing,
 * `sense.room` said `empty`; any judge saying "someone" ends every link's stretch, and a stretch
 * is committed only once every judge has spoken past its end, and (3) no further from the
 * current reference than `maxChangeNoiseFloors`. The new link reference is recorded from the
 * stretch's own packets, exactly as an installer's recording; the old versions are kept.
 *
 * Why a still person is not absorbed: a still person is a static change the locator images (it
 * was recorded without them), so the locator judge reports them and no second counts; a person
 * the locator loses still breathes, which sensing reports; and one who is larger than drift is
 * over the change cap. Each guard alone is measured in autoref-protocol.md.
 */
export class ReferenceRefresh {
  readonly settings: RefreshSettings;
  #reference: EmptyRoomReference;
  readonly #links = new Map<string, LinkStretch>();
  /** Per judge: the time (ms) since which it has said "empty" (null: it said "someone" last), and the time it last spoke. */
  readonly #judges = new Map<EmptinessJudge, { emptySince: number | null; lastMs: number }>();
  readonly #history: { version: ReferenceVersion; reference: EmptyRoomReference }[] = [];
  #version: ReferenceVersion = { version: 1, at: null, links: [], reason: 'the reference the room started with' };

  constructor(reference: EmptyRoomReference, settings: Partial<RefreshSettings> = {}, readonly judges: readonly EmptinessJudge[] = ['locator']) {
    this.settings = RefreshSettingsSchema.parse(settings);
    this.#reference = reference;
    for (const link of reference.links) this.#links.set(linkKey(link), { recorder: null, lastRecordedMs: -Infinity, seconds: 0, endMs: 0, lastChange: 0, refreshedAt: null });
  }

  /** The reference in use now. */
  get reference(): EmptyRoomReference {
    return this.#reference;
  }

  /**
   * A judge's word on the room at `time` (ms): empty or not (ignored from a judge not in `judges`). Returns the room's new reference when
   * it completed a refresh: a stretch long enough that waited for this judge to speak past its end
   * (sensing closes its seconds after the detector does).
   */
  judge(judge: EmptinessJudge, time: number, empty: boolean): EmptyRoomReference | null {
    // Only the judges this room asks: a word from another is not evidence it weighs.
    if (!this.judges.includes(judge)) return null;
    const state = this.#judges.get(judge) ?? { emptySince: null, lastMs: -Infinity };
    state.lastMs = Math.max(state.lastMs, time);
    this.#judges.set(judge, state);
    if (!empty) {
      state.emptySince = null;
      for (const link of this.#links.values()) this.#restart(link);
      return null;
    }
    state.emptySince ??= time;
    return this.#commitReady();
  }

  /** Add a frame of one of the room's links: kept for the new reference while its link's stretch runs. */
  push(frame: CsiFrame): void {
    if (!this.settings.enabled) return;
    const link = this.#links.get(linkKey(frame.link));
    if (!link || frame.time - link.lastRecordedMs < 1000 / this.settings.packetsPerSecond) return;
    link.lastRecordedMs = frame.time;
    (link.recorder ??= new ReferenceRecorder(this.#reference.environmentId, `refresh of ${this.#reference.source || this.#reference.environmentId}`)).push(frame);
  }

  /**
   * A link's second as the stale-reference detector judged it; returns the room's new reference
   * when this second completed a refresh (the caller hands it to the locator and the detector).
   */
  second(evidence: StillSecond): EmptyRoomReference | null {
    const link = this.#links.get(evidence.link);
    if (!this.settings.enabled || !link) return null;
    const change = evidence.chainAlignedChangeNoiseFloors ?? evidence.changeNoiseFloors;
    // Every required judge empty since before this second began (a second is about 1 s of packets).
    const empty = this.judges.every((j) => {
      const state = this.#judges.get(j);
      return state !== undefined && state.emptySince !== null && state.emptySince <= evidence.time - 1000;
    });
    if (!evidence.still || !empty || change === null || change > this.settings.maxChangeNoiseFloors) {
      this.#restart(link);
      return null;
    }
    link.seconds++;
    link.endMs = evidence.time;
    link.lastChange = change;
    return this.#commitReady();
  }

  /**
   * Commit every link whose stretch is long enough and that every judge has spoken past: one that
   * lags (sensing closes its seconds later) could still say "someone" about its last second.
   * Returns the new reference when any link was refreshed.
   */
  #commitReady(): EmptyRoomReference | null {
    let made: EmptyRoomReference | null = null;
    for (const [key, link] of this.#links) {
      if (link.seconds < this.settings.emptySeconds) continue;
      if (!this.judges.every((j) => (this.#judges.get(j)?.lastMs ?? -Infinity) >= link.endMs)) continue;
      made = this.#commit(key, link, link.endMs, link.lastChange) ?? made;
    }
    return made;
  }

  /** Go back to the version before the current one; null when there is none. */
  rollback(): EmptyRoomReference | null {
    const previous = this.#history.shift();
    if (!previous) return null;
    this.#reference = previous.reference;
    this.#version = previous.version;
    for (const link of this.#links.values()) this.#restart(link);
    return this.#reference;
  }

  /** What the refresh has done and is doing, for the status. */
  state(): RefreshState {
    return {
      enabled: this.settings.enabled,
      version: this.#version.version,
      refreshedAt: [...this.#links.values()].reduce<number | null>((last, l) => (l.refreshedAt !== null && (last === null || l.refreshedAt > last) ? l.refreshedAt : last), null),
      reason: this.#version.reason,
      judges: [...this.judges],
      links: [...this.#links].map(([key, l]) => ({ link: key, stretchSeconds: l.seconds, refreshedAt: l.refreshedAt })),
      history: this.#history.map((h) => h.version),
    };
  }

  #restart(link: LinkStretch): void {
    link.recorder = null;
    link.seconds = 0;
    link.lastRecordedMs = -Infinity;
  }

  #commit(key: string, link: LinkStretch, time: number, change: number): EmptyRoomReference | null {
    let recorded: LinkReference | undefined;
    try {
      recorded = link.recorder?.build().links.find((l) => linkKey(l) === key);
    } catch {
      // Too few packets (a link that barely sends): not refreshed, the stretch starts again.
    }
    this.#restart(link);
    if (!recorded) return null;
    this.#history.unshift({ version: this.#version, reference: this.#reference });
    this.#history.splice(KEPT_VERSIONS);
    this.#reference = { ...this.#reference, links: this.#reference.links.map((l) => (linkKey(l) === key ? recorded : l)) };
    this.#version = {
      version: this.#version.version + 1,
      at: time,
      links: [key],
      reason: `${key}: the room was judged empty (${this.judges.join(' and ')}) and the link still for ${this.settings.emptySeconds} s; it had drifted ${change.toFixed(1)} noise floors from the reference`,
    };
    link.refreshedAt = time;
    return this.#reference;
  }
}

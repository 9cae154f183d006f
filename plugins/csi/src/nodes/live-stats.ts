/** Packets per second over the last second, in ten 100 ms buckets. */
export class RateMeter {
  #buckets = new Float64Array(10);
  #bucketStart = 0;
  #current = 0;
  #now: () => number;

  constructor(now: () => number = () => performance.now()) {
    this.#now = now;
    this.#bucketStart = Math.floor(now() / 100);
  }

  #advance(): void {
    const bucket = Math.floor(this.#now() / 100);
    const steps = Math.min(10, bucket - this.#bucketStart);
    for (let i = 0; i < steps; i++) {
      this.#current = (this.#current + 1) % 10;
      this.#buckets[this.#current] = 0;
    }
    if (steps > 0) this.#bucketStart = bucket;
  }

  /** Count one event now. */
  tick(): void {
    this.#advance();
    this.#buckets[this.#current]++;
  }

  /** Events per second over the last second. */
  rate(): number {
    this.#advance();
    let sum = 0;
    for (let i = 0; i < 10; i++) sum += this.#buckets[i];
    return sum;
  }
}

/**
 * Sequence gaps and loss per transmitter: a jump from s to s + k (modulo the counter's range)
 * means k − 1 packets were lost. Repeats (the same packet seen on several cores or streams)
 * are not counted; a step backwards is counted as reordering.
 *
 * It remembers at most `maxTransmitters` transmitters (the least recently heard is forgotten)
 * and at most 64 characters of each key: a flood of packets from made-up MACs, or a CSV "MAC"
 * of kilobytes, must not grow a live receiver's memory without limit.
 */
export class SequenceTracker {
  #last = new Map<string, number>();
  /** Packets inferred lost from sequence jumps. */
  lost = 0;
  /** Jumps seen (each a run of one or more lost packets). */
  gaps = 0;
  /** Steps backwards (reordering or a counter reset). */
  reordered = 0;
  /** Packets counted toward loss (those with a sequence). */
  sequenced = 0;

  constructor(
    /** Counter range, e.g. 4096 for 802.11 sequence numbers. */
    readonly modulus: number,
    /** Jumps larger than this count as a restart, not loss. */
    readonly maxGap = 1000,
    /** Transmitters remembered at once (a real room has a handful). */
    readonly maxTransmitters = 256,
  ) {}

  /** Transmitters remembered now. */
  get transmitters(): number {
    return this.#last.size;
  }

  /** Note a packet of `key` with `sequence`. */
  observe(key: string, sequence: number | undefined): void {
    if (sequence === undefined || !Number.isFinite(sequence)) return;
    if (key.length > 64) key = key.slice(0, 64);
    const last = this.#last.get(key);
    // Re-inserting keeps the map in order of last use, so the first key is the one to forget.
    this.#last.delete(key);
    if (last === undefined && this.#last.size >= this.maxTransmitters) this.#last.delete(this.#last.keys().next().value!);
    this.#last.set(key, sequence);
    if (last === undefined) {
      this.sequenced++;
      return;
    }
    if (sequence === last) return;
    this.sequenced++;
    const step = (((sequence - last) % this.modulus) + this.modulus) % this.modulus;
    if (step === 1) return;
    if (step > this.maxGap) {
      this.reordered++;
      return;
    }
    this.gaps++;
    this.lost += step - 1;
  }

  /** Lost fraction of the packets that should have arrived. */
  lossRatio(): number | null {
    const expected = this.sequenced + this.lost;
    return expected === 0 ? null : this.lost / expected;
  }
}

/** Figures every live receiver reports through `stats()`. */
export class ReceiverStats {
  readonly rate = new RateMeter();
  readonly sequences: SequenceTracker;
  packets = 0;
  frames = 0;
  invalid = 0;
  other = 0;
  /** Frames a UDP receiver dropped because the flow had no room (a socket cannot wait). */
  dropped = 0;
  /** The last bad input: its code, where it came from (datagram source, device) and the byte offset. */
  lastError: string | null = null;
  /** The code of `lastError` (`WIFLOW_CSI_…`), null when none or when the decoder itself failed. */
  lastErrorCode: string | null = null;

  constructor(modulus: number) {
    this.sequences = new SequenceTracker(modulus);
  }

  /** Count one bad input and keep its error (a code, or null for a decoder bug) as the last one. */
  fault(code: string | null, message: string): void {
    this.invalid++;
    this.lastErrorCode = code;
    this.lastError = code ? `${code}: ${message}` : message;
  }

  /** The figures as the node's `stats()`. */
  snapshot(): Record<string, number | string | null> {
    const loss = this.sequences.lossRatio();
    return {
      packets: this.packets,
      frames: this.frames,
      packetRate: this.rate.rate(),
      lost: this.sequences.lost,
      sequenceGaps: this.sequences.gaps,
      reordered: this.sequences.reordered,
      lossRatio: loss === null ? null : Number(loss.toFixed(6)),
      invalid: this.invalid,
      otherPackets: this.other,
      droppedFrames: this.dropped,
      transmitters: this.sequences.transmitters,
      lastError: this.lastError,
      lastErrorCode: this.lastErrorCode,
    };
  }
}

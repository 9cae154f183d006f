/**
 * Physical subcarrier indices (multiples of the 312.5 kHz spacing from the channel centre)
 * of the devices' reported tones.
 */

/** Intel 5300 grouping at 20 MHz: −28:2:−2, −1, 1:2:27, 28 (30 groups). */
export const INTEL_HT20_GROUPED = Int16Array.from([-28, -26, -24, -22, -20, -18, -16, -14, -12, -10, -8, -6, -4, -2, -1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 28]);

/** Intel 5300 grouping at 40 MHz: −58:4:−2, 2:4:58 (30 groups). */
export const INTEL_HT40_GROUPED = Int16Array.from([...range(-58, -2, 4), ...range(2, 58, 4)]);

/** 802.11n HT20 occupied tones −28..−1, 1..28 (56), as the Atheros tool reports them. */
export const HT20_TONES = Int16Array.from([...range(-28, -1, 1), ...range(1, 28, 1)]);

/** 802.11n HT40 occupied tones −58..−2, 2..58 (114). */
export const HT40_TONES = Int16Array.from([...range(-58, -2, 1), ...range(2, 58, 1)]);

/** Inclusive integer range. */
export function range(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  for (let v = from; step > 0 ? v <= to : v >= to; v += step) out.push(v);
  return out;
}

/** Physical index of FFT bin `bin` of an `nfft`-point FFT (FFT order: 0..n/2−1, −n/2..−1). */
export function fftBinToIndex(bin: number, nfft: number): number {
  return bin < nfft / 2 ? bin : bin - nfft;
}

/**
 * Whether a physical index carries a measured tone (not DC, not guard) at a bandwidth given
 * by its FFT size: 64 → ±1..±28, 128 → ±2..±58, 256 → ±2..±122, 512 → ±6..±250 (VHT layouts).
 */
export function isOccupiedTone(index: number, nfft: number): boolean {
  const a = Math.abs(index);
  switch (nfft) {
    case 64: return a >= 1 && a <= 28;
    case 128: return a >= 2 && a <= 58;
    case 256: return a >= 2 && a <= 122;
    case 512: return a >= 6 && a <= 250 && (a < 126 || a > 130);
    default: return a >= 1 && a < nfft / 2 - nfft / 32;
  }
}

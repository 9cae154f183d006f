import { SimErrors } from '../errors.js';

/** Receiver chips the simulator imitates (subcarrier grid and quantisation). */
export type DeviceKind = 'intel5300' | 'atheros' | 'esp32' | 'nexmon' | 'ideal';

/** Device names, for schemas. */
export const DEVICE_KINDS: readonly DeviceKind[] = ['intel5300', 'atheros', 'esp32', 'nexmon', 'ideal'];

/** ESP32 training field whose CSI is reported. */
export type Esp32Field = 'lltf' | 'htltf';

/** The subcarriers a device reports for one bandwidth. */
export interface SubcarrierGrid {
  /** Grid id, e.g. 'intel5300-ht20'. */
  name: string;
  device: DeviceKind;
  bandwidthHz: number;
  /** Physical subcarrier indices (multiples of 312.5 kHz from the centre), ascending. */
  indices: Int16Array;
  /** Indices the device reports but that carry no signal (null and guard bins). */
  nulls: ReadonlySet<number>;
}

function range(from: number, to: number, step = 1): number[] {
  const out: number[] = [];
  for (let v = from; step > 0 ? v <= to : v >= to; v += step) out.push(v);
  return out;
}

function grid(name: string, device: DeviceKind, bandwidthMHz: number, indices: number[], nulls: number[] = []): SubcarrierGrid {
  return { name, device, bandwidthHz: bandwidthMHz * 1e6, indices: Int16Array.from(indices), nulls: new Set(nulls) };
}

/**
 * The subcarrier grid of a device at a bandwidth:
 * - Intel 5300 (802.11n CSI Tool): 30 groups; HT20 −28:2:−2, −1, 1:2:27, 28; HT40 −58:4:−2, 2:4:58.
 * - Atheros CSI Tool: 56 tones at HT20 (±1..±28), 114 at HT40 (±2..±58).
 * - ESP32: L-LTF ±1..±26 (52) or HT-LTF ±1..±28 (56), 20 MHz.
 * - Nexmon: every FFT bin, −N/2..N/2−1 for N = 64 / 128 / 256 at 20 / 40 / 80 MHz; null and
 *   guard bins are reported but carry only noise, as on the chip.
 * - ideal: the 802.11n/ac data and pilot subcarriers (±1..±28, ±2..±58, ±2..±122).
 */
export function subcarrierGrid(device: DeviceKind, bandwidthMHz: number, esp32Field: Esp32Field = 'htltf'): SubcarrierGrid {
  switch (device) {
    case 'intel5300':
      if (bandwidthMHz === 20) return grid('intel5300-ht20', device, 20, [...range(-28, -2, 2), -1, ...range(1, 27, 2), 28]);
      if (bandwidthMHz === 40) return grid('intel5300-ht40', device, 40, [...range(-58, -2, 4), ...range(2, 58, 4)]);
      break;
    case 'atheros':
      if (bandwidthMHz === 20) return grid('atheros-ht20', device, 20, [...range(-28, -1), ...range(1, 28)]);
      if (bandwidthMHz === 40) return grid('atheros-ht40', device, 40, [...range(-58, -2), ...range(2, 58)]);
      break;
    case 'esp32':
      if (bandwidthMHz === 20) {
        const edge = esp32Field === 'lltf' ? 26 : 28;
        return grid(`esp32-${esp32Field}`, device, 20, [...range(-edge, -1), ...range(1, edge)]);
      }
      break;
    case 'nexmon': {
      const n = bandwidthMHz === 20 ? 64 : bandwidthMHz === 40 ? 128 : bandwidthMHz === 80 ? 256 : 0;
      if (!n) break;
      const h = n / 2;
      const nulls =
        n === 64 ? [...range(-32, -29), 0, ...range(29, 31)] : n === 128 ? [...range(-64, -59), -1, 0, 1, ...range(59, 63)] : [...range(-128, -123), -1, 0, 1, ...range(123, 127)];
      return grid(`nexmon-${bandwidthMHz}`, device, bandwidthMHz, range(-h, h - 1), nulls);
    }
    case 'ideal':
      if (bandwidthMHz === 20) return grid('ideal-20', device, 20, [...range(-28, -1), ...range(1, 28)]);
      if (bandwidthMHz === 40) return grid('ideal-40', device, 40, [...range(-58, -2), ...range(2, 58)]);
      if (bandwidthMHz === 80) return grid('ideal-80', device, 80, [...range(-122, -2), ...range(2, 122)]);
      break;
  }
  throw SimErrors.gridUnsupported(device, bandwidthMHz);
}

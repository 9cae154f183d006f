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
}

function range(from: number, to: number, step = 1): number[] {
  const out: number[] = [];
  for (let v = from; step > 0 ? v <= to : v >= to; v += step) out.push(v);
  return out;
}

function grid(name: string, device: DeviceKind, bandwidthMHz: number, indices: number[]): SubcarrierGrid {
  return { name, device, bandwidthHz: bandwidthMHz * 1e6, indices: Int16Array.from(indices) };
}

/**
 * The subcarrier grid of a device at a bandwidth:
 * - Intel 5300 (802.11n CSI Tool): 30 groups; HT20 −28:2:−2, −1, 1:2:27, 28; HT40 −58:4:−2, 2:4:58.
 * - Atheros CSI Tool: 56 tones at HT20 (±1..±28), 114 at HT40 (±2..±58).
 * - ESP32: L-LTF ±1..±26 (52) or HT-LTF ±1..±28 (56) at 20 MHz; HT-LTF ±2..±58 (114) at 40 MHz.
 * - Nexmon and ideal: the occupied 802.11n/ac tones at 20 / 40 / 80 MHz (±1..±28, ±2..±58,
 *   ±2..±122), which is what plugin-csi's Nexmon reader keeps by default (null and guard
 *   bins dropped, ascending order).
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
      // HT40: the HT-LTF's occupied tones (what an ESP32 reports for a 40 MHz HT packet, pilots included).
      if (bandwidthMHz === 40) return grid('esp32-ht40', device, 40, [...range(-58, -2), ...range(2, 58)]);
      break;
    case 'nexmon':
    case 'ideal':
      if (bandwidthMHz === 20) return grid(`${device}-20`, device, 20, [...range(-28, -1), ...range(1, 28)]);
      if (bandwidthMHz === 40) return grid(`${device}-40`, device, 40, [...range(-58, -2), ...range(2, 58)]);
      if (bandwidthMHz === 80) return grid(`${device}-80`, device, 80, [...range(-122, -2), ...range(2, 122)]);
      break;
  }
  throw SimErrors.gridUnsupported(device, bandwidthMHz);
}

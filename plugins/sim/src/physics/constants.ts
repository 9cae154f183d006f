/** Speed of light in vacuum, m/s. */
export const SPEED_OF_LIGHT = 299_792_458;

/** 802.11 OFDM subcarrier spacing, Hz (64-point FFT over 20 MHz). */
export const SUBCARRIER_SPACING_HZ = 312_500;

/** Wavelength in metres at a frequency in Hz. */
export function wavelength(frequencyHz: number): number {
  return SPEED_OF_LIGHT / frequencyHz;
}

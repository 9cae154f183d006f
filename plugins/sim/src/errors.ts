import { defineError } from '@wiflow/core';

/** Every error the simulator raises, one place (codes are never reused). */
export const SimErrors = {
  scenarioInvalid: defineError('WIFLOW_SIM_SCENARIO_INVALID', 422, (where: string, reason: string) => `invalid scenario${where ? ` (${where})` : ''}: ${reason}`),
  scenarioUnreadable: defineError('WIFLOW_SIM_SCENARIO_UNREADABLE', 400, (file: string, reason: string) => `cannot read scenario ${file}: ${reason}`),
  gridUnsupported: defineError('WIFLOW_SIM_GRID_UNSUPPORTED', 422, (device: string, bandwidthMHz: number) =>
    `device ${device} has no subcarrier grid at ${bandwidthMHz} MHz (intel5300, atheros and esp32: 20/40, nexmon: 20/40/80, ideal: 20/40/80)`),
  radioUnknown: defineError('WIFLOW_SIM_RADIO_UNKNOWN', 422, (id: string, role: string) => `link names ${role} radio ${id}, which the scenario does not declare with that role`),
  outsideRoom: defineError('WIFLOW_SIM_OUTSIDE_ROOM', 422, (what: string) => `${what} lies outside the room`),
  scriptInvalid: defineError('WIFLOW_SIM_SCRIPT_INVALID', 422, (person: string, reason: string) => `script of person ${person}: ${reason}`),
  datasetInvalid: defineError('WIFLOW_SIM_DATASET_INVALID', 422, (reason: string) => `invalid dataset options: ${reason}`),
  profileUnknown: defineError('WIFLOW_SIM_PROFILE_UNKNOWN', 422, (name: string, known: string) => `unknown hardware profile ${JSON.stringify(name)} (known: ${known}; add +4rx or +2tx for a fourth receiver or a second transmitter, ~clean for the chip without its impairments)`),
  outputUnwritable: defineError('WIFLOW_SIM_OUTPUT_UNWRITABLE', 500, (file: string, reason: string) => `cannot write ${file}: ${reason}`),
} as const;

/** The documented error definitions, for docs and tests. */
export const simErrorCatalogue: { code: string; status: number }[] = Object.values(SimErrors).map((e) => ({ code: e.code, status: e.status }));

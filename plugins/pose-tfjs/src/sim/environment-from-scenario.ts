import { PoseErrors } from '../errors.js';
import { defaultCamera, type EnvironmentGeometry } from '../model/environment.js';

/** The parts of a simulator scenario (plugin-sim's `Scenario`) the pose model needs. */
export interface ScenarioGeometry {
  environmentId: string;
  room: { width: number; depth: number; height: number };
  radios: readonly { id: string; role: 'tx' | 'rx' | string; position: readonly number[]; yawDeg?: number; antennas?: number; spacing?: number }[];
  links?: readonly { tx: string; rx: string }[] | null;
  camera?: { position: readonly number[]; lookAt: readonly number[]; width: number; height: number; horizontalFovDeg: number } | null;
}

/** Loaded on demand: pose inference does not need the simulator unless a scenario is named. */
const SIM_PACKAGE: string = '@wiflow/plugin-sim';

const p3 = (p: readonly number[]): [number, number, number] => [p[0], p[1], p[2]];

/**
 * Environment geometry of a scenario, links in the simulator's order (the scenario's
 * `links`, else every transmitter to every receiver) and its camera (else the default one).
 */
export function environmentFromScenario(s: ScenarioGeometry): EnvironmentGeometry {
  const radios = new Map(s.radios.map((r) => [r.id, r]));
  const links = s.links ?? s.radios.filter((r) => r.role === 'tx').flatMap((tx) => s.radios.filter((r) => r.role === 'rx').map((rx) => ({ tx: tx.id, rx: rx.id })));
  const room = { width: s.room.width, depth: s.room.depth, height: s.room.height };
  return {
    id: s.environmentId,
    room,
    links: links.map((l) => {
      const tx = radios.get(l.tx), rx = radios.get(l.rx);
      if (!tx || !rx) throw PoseErrors.environmentUnknown(`${s.environmentId} (link ${l.tx}→${l.rx} names an unknown radio)`);
      const array = (r: typeof tx) => ({ yawDeg: r.yawDeg ?? 0, antennas: r.antennas ?? 3, ...(r.spacing !== undefined ? { spacing: r.spacing } : {}) });
      return { tx: l.tx, rx: l.rx, txPosition: p3(tx.position), rxPosition: p3(rx.position), txArray: array(tx), rxArray: array(rx) };
    }),
    camera: s.camera
      ? { position: p3(s.camera.position), lookAt: p3(s.camera.lookAt), width: s.camera.width, height: s.camera.height, horizontalFovDeg: s.camera.horizontalFovDeg }
      : defaultCamera(room),
  };
}

/** Read a scenario file with the simulator's own loader (validation and defaults) and take its geometry. */
export async function environmentFromScenarioFile(file: string): Promise<EnvironmentGeometry> {
  let sim: { loadScenario?: (file: string) => ScenarioGeometry };
  try {
    sim = (await import(SIM_PACKAGE)) as typeof sim;
  } catch (error) {
    throw PoseErrors.simulatorMissing(`cannot load @wiflow/plugin-sim to read ${file}: ${(error as Error).message}`);
  }
  if (typeof sim.loadScenario !== 'function') throw PoseErrors.simulatorMissing('@wiflow/plugin-sim does not export loadScenario');
  return environmentFromScenario(sim.loadScenario(file));
}

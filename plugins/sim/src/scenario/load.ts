import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { SimErrors } from '../errors.js';
import { ScenarioSchema, type Scenario, type ScenarioInput } from './schema.js';

function formatIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 8)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

/**
 * Validate a scenario object: schema (defaults applied), then geometry — radios, clutter,
 * starting points, waypoints and zones inside the room, links naming declared radios.
 */
export function validateScenario(input: unknown, where = ''): Scenario {
  const parsed = ScenarioSchema.safeParse(input);
  if (!parsed.success) throw SimErrors.scenarioInvalid(where, formatIssues(parsed.error));
  const s = parsed.data;
  const { width, depth, height } = s.room;
  const inside = (x: number, y: number, z?: number) => x > 0 && x < width && y > 0 && y < depth && (z === undefined || (z > 0 && z < height));
  const ids = new Set<string>();
  for (const r of s.radios) {
    if (ids.has(r.id)) throw SimErrors.scenarioInvalid(where, `radio id ${r.id} is used twice`);
    ids.add(r.id);
    if (!inside(...r.position)) throw SimErrors.outsideRoom(`radio ${r.id} at [${r.position.join(', ')}]`);
  }
  if (!s.radios.some((r) => r.role === 'tx') || !s.radios.some((r) => r.role === 'rx')) throw SimErrors.scenarioInvalid(where, 'at least one tx and one rx radio are needed');
  for (const l of s.links ?? []) {
    if (!s.radios.some((r) => r.id === l.tx && r.role === 'tx')) throw SimErrors.radioUnknown(l.tx, 'tx');
    if (!s.radios.some((r) => r.id === l.rx && r.role === 'rx')) throw SimErrors.radioUnknown(l.rx, 'rx');
  }
  s.clutter.forEach((c, i) => {
    if (!inside(...c.position)) throw SimErrors.outsideRoom(`clutter ${c.label ?? i} at [${c.position.join(', ')}]`);
  });
  const personIds = new Set<number>();
  for (const p of s.people) {
    if (personIds.has(p.id)) throw SimErrors.scenarioInvalid(where, `person id ${p.id} is used twice`);
    personIds.add(p.id);
    if (p.start && !inside(p.start.x, p.start.y)) throw SimErrors.outsideRoom(`start of person ${p.id}`);
    p.script.forEach((step, i) => {
      const pts: [number, number][] = step.action === 'walk' || step.action === 'leave' ? step.path : step.action === 'enter' ? [step.at] : [];
      for (const [x, y] of pts) {
        // Doors sit on the walls: allow points on the boundary, not beyond it.
        if (x < 0 || x > width || y < 0 || y > depth) throw SimErrors.outsideRoom(`step ${i + 1} (${step.action}) of person ${p.id}: point [${x}, ${y}]`);
      }
    });
  }
  validateRealism(s, where, inside);
  return s;
}

/** Consistency of the realism fields (distractors, drift): every error names the field path. */
function validateRealism(s: Scenario, where: string, inside: (x: number, y: number, z?: number) => boolean): void {
  const { width, depth } = s.room;
  const onPlan = (x: number, y: number) => x >= 0 && x <= width && y >= 0 && y <= depth;
  (s.distractors ?? []).forEach((d, i) => {
    const field = `distractors.${i}`;
    switch (d.kind) {
      case 'fan':
      case 'curtain':
      case 'plant':
        if (!inside(...d.position)) throw SimErrors.outsideRoom(`${field}.position (${d.kind} at [${d.position.join(', ')}])`);
        if (d.kind === 'fan' && d.mount === 'ceiling' && d.position[2] - 0.05 < 0) throw SimErrors.scenarioInvalid(where, `${field}.position: a ceiling fan hangs above the floor`);
        break;
      case 'pet':
        d.path.forEach(([x, y], k) => {
          if (!inside(x, y)) throw SimErrors.outsideRoom(`${field}.path.${k} (pet at [${x}, ${y}])`);
        });
        break;
      case 'door':
        if (!onPlan(...d.hinge)) throw SimErrors.outsideRoom(`${field}.hinge (door hinge at [${d.hinge.join(', ')}])`);
        break;
      case 'neighbour': {
        const length = d.wall === 'west' || d.wall === 'east' ? depth : width;
        for (const key of ['from', 'to'] as const) {
          if (d[key] > length) throw SimErrors.scenarioInvalid(where, `${field}.${key}: ${d[key]} m is beyond the ${d.wall} wall (${length} m long)`);
        }
        break;
      }
    }
  });
  if (!s.drift) return;
  s.drift.moved.forEach((m, i) => {
    const field = `drift.moved.${i}`;
    const found = typeof m.clutter === 'number' ? m.clutter < s.clutter.length : s.clutter.some((c) => c.label === m.clutter);
    if (!found) throw SimErrors.scenarioInvalid(where, `${field}.clutter: no clutter item ${JSON.stringify(m.clutter)}`);
    if (!inside(...m.to)) throw SimErrors.outsideRoom(`${field}.to ([${m.to.join(', ')}])`);
  });
  s.drift.replugged.forEach((id, i) => {
    if (!s.radios.some((r) => r.id === id)) throw SimErrors.scenarioInvalid(where, `drift.replugged.${i}: no radio ${JSON.stringify(id)}`);
  });
}

/** Parse scenario text (JSON or YAML; YAML is a superset of JSON, so `format` only sharpens errors). */
export function parseScenario(text: string, format: 'json' | 'yaml' = 'yaml', where = ''): Scenario {
  let data: unknown;
  try {
    data = format === 'json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw SimErrors.scenarioInvalid(where, `not valid ${format.toUpperCase()}: ${(error as Error).message}`);
  }
  return validateScenario(data, where);
}

/** Read and validate a scenario file (.json, .yaml or .yml). */
export function loadScenario(file: string): Scenario {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw SimErrors.scenarioUnreadable(file, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
  }
  const ext = path.extname(file).toLowerCase();
  return parseScenario(text, ext === '.json' ? 'json' : 'yaml', path.basename(file));
}

/** Accept a validated scenario, raw scenario input, or a file path. */
export function resolveScenario(source: Scenario | ScenarioInput | Record<string, unknown> | string): Scenario {
  if (typeof source === 'string') return loadScenario(source);
  return validateScenario(source);
}

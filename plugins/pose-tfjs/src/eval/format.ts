import type { BaselineMetrics, BucketMetrics, EvaluationReport } from './metrics.js';

const mm = (v: number | null) => (v === null ? '—' : v.toFixed(0));
const frac = (v: number | null) => (v === null ? '—' : v.toFixed(3));
const metres = (v: number | null) => (v === null ? '—' : v.toFixed(3));

function row(label: string, m: BucketMetrics | BaselineMetrics, count: boolean): string {
  const c = count && 'countAccuracy' in m ? (m as BucketMetrics).countAccuracy.toFixed(3) : '—';
  return `${label.padEnd(28)} ${String(m.samples).padStart(7)} ${String(m.persons).padStart(7)} ${mm(m.mpjpeMm).padStart(9)} ${mm(m.rootRelativeMpjpeMm).padStart(9)} ${frac(m.pck02).padStart(8)} ${metres(m.floorErrorM).padStart(9)} ${c.padStart(8)}`;
}

/** The evaluation as a table: per true person-count bucket, the model and both baselines. */
export function formatEvaluation(report: EvaluationReport): string[] {
  const lines = [`${'bucket / method'.padEnd(28)} ${'samples'.padStart(7)} ${'people'.padStart(7)} ${'MPJPE mm'.padStart(9)} ${'root mm'.padStart(9)} ${'PCK@0.2'.padStart(8)} ${'floor m'.padStart(9)} ${'count'.padStart(8)}`];
  for (const key of Object.keys(report.model)) {
    const label = key === 'all' ? 'all' : `${key} ${key === '1' ? 'person' : 'people'}`;
    lines.push(row(`${label}: model`, report.model[key], true));
    const t = report.baselines.meanPoseAtTruePosition[key];
    const c = report.baselines.meanPoseAtRoomCentre[key];
    if (t && t.persons > 0) lines.push(row(`${label}: mean pose @ true pos`, t, false));
    if (c && c.persons > 0) lines.push(row(`${label}: mean pose @ centre`, c, false));
  }
  lines.push('MPJPE: absolute 3D joint error in the room frame; root: after aligning hip midpoints; PCK@0.2: 2D joints within 0.2 × true torso diameter (left shoulder–right hip) in the virtual camera; count: exact person-count accuracy.');
  return lines;
}

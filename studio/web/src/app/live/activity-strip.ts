import type { ActivitySample, LiveAlert } from './types';

/** Colours of activity labels, in the order they were first seen. */
const PALETTE = ['#4363d8', '#3cb44b', '#f58231', '#911eb4', '#42d4f4', '#f032e6', '#9a6324'];

/** Activity names seen in the samples, in a stable order. */
export function activityNames(series: ActivitySample[]): string[] {
  const names = new Set<string>();
  for (const p of series) for (const name of Object.keys(p.activities)) names.add(name);
  return [...names].sort();
}

/** The colour of an activity label among those seen. */
export function activityColor(names: string[], name: string): string {
  return PALETTE[Math.max(0, names.indexOf(name)) % PALETTE.length];
}

/**
 * The last `windowMs` as a strip: people per frame (line), the activity labels the frames
 * carry (stacked bars) and alerts (red marks, falls labelled). Says so when there is nothing.
 */
export function drawActivityStrip(ctx: CanvasRenderingContext2D, width: number, height: number, series: ActivitySample[], alerts: LiveAlert[], now: number, windowMs: number): void {
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, height);
  const left = 28;
  const right = 8;
  const top = 8;
  const bottom = 18;
  const t0 = now - windowMs;
  const maxN = Math.max(2, ...series.map((p) => p.n));
  const X = (t: number) => left + ((t - t0) / windowMs) * (width - left - right);
  const Y = (n: number) => height - bottom - (n / maxN) * (height - top - bottom);
  ctx.strokeStyle = '#e5e7eb';
  ctx.fillStyle = '#64748b';
  ctx.font = '11px system-ui, sans-serif';
  ctx.textAlign = 'right';
  for (let n = 0; n <= maxN; n++) {
    ctx.beginPath();
    ctx.moveTo(left, Math.round(Y(n)) + 0.5);
    ctx.lineTo(width - right, Math.round(Y(n)) + 0.5);
    ctx.stroke();
    ctx.fillText(String(n), left - 4, Y(n) + 4);
  }
  ctx.textAlign = 'left';
  for (let m = 0; m <= windowMs / 60_000; m++) ctx.fillText(m === 0 ? 'now' : `-${m} min`, Math.min(width - 40, X(now - m * 60_000) - (m === 0 ? 24 : 14)), height - 4);
  const names = activityNames(series);
  const barWidth = Math.max(2, (width - left - right) / 600);
  for (const p of series) {
    if (p.t < t0) continue;
    let base = 0;
    for (const name of names) {
      const v = p.activities[name] ?? 0;
      if (!v) continue;
      ctx.fillStyle = activityColor(names, name);
      ctx.globalAlpha = 0.7;
      ctx.fillRect(X(p.t), Y(base + v), barWidth, Y(base) - Y(base + v));
      ctx.globalAlpha = 1;
      base += v;
    }
  }
  ctx.strokeStyle = '#111';
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  series.filter((p) => p.t >= t0).forEach((p, i) => (i === 0 ? ctx.moveTo(X(p.t), Y(p.n)) : ctx.lineTo(X(p.t), Y(p.n))));
  ctx.stroke();
  for (const a of alerts) {
    const t = Date.parse(a.timestamp);
    if (!(t >= t0)) continue;
    ctx.strokeStyle = '#dc2626';
    ctx.lineWidth = 2;
    ctx.beginPath();
    ctx.moveTo(X(t), top);
    ctx.lineTo(X(t), height - bottom);
    ctx.stroke();
    ctx.fillStyle = '#dc2626';
    ctx.fillText(a.alert_type.replace(/_/g, ' '), Math.min(X(t) + 3, width - 80), top + 10);
  }
  if (series.length === 0) {
    ctx.fillStyle = '#64748b';
    ctx.font = '13px system-ui, sans-serif';
    ctx.textAlign = 'center';
    ctx.fillText('no frames yet', width / 2, height / 2);
    ctx.textAlign = 'left';
  }
}

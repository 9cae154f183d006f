// Small, dependency-free SVG charts for CLI reports and benchmarks (the docs embed them).

/** One series of a bar chart: a value per category (null: no value). */
export interface BarSeries {
  name: string;
  values: (number | null)[];
}

const PALETTE = ['#2563eb', '#f59e0b', '#10b981', '#ef4444', '#8b5cf6', '#64748b'];

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c]!);
}

function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const step = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * step >= max) return m * step;
  return 10 * step;
}

/** A grouped bar chart (categories along x, one bar per series), as an SVG document. */
export function barChartSvg(options: { title: string; categories: string[]; series: BarSeries[]; unit: string; width?: number; height?: number }): string {
  const width = options.width ?? Math.max(640, options.categories.length * (14 * options.series.length + 16) + 120);
  const height = options.height ?? 360;
  const left = 60, right = 16, top = 40, bottom = 90;
  const plotW = width - left - right, plotH = height - top - bottom;
  const max = niceMax(Math.max(0, ...options.series.flatMap((s) => s.values.filter((v): v is number => v !== null && Number.isFinite(v)))));
  const groupW = plotW / Math.max(1, options.categories.length);
  const barW = Math.max(2, (groupW - 6) / Math.max(1, options.series.length));
  const y = (v: number) => top + plotH - (v / max) * plotH;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`);
  parts.push(`<rect width="${width}" height="${height}" fill="#fff"/>`);
  parts.push(`<text x="${left}" y="20" font-size="14" font-weight="bold">${escapeXml(options.title)}</text>`);
  for (let i = 0; i <= 5; i++) {
    const v = (max * i) / 5;
    parts.push(`<line x1="${left}" x2="${width - right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e5e7eb"/>`);
    parts.push(`<text x="${left - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end">${Number(v.toPrecision(3))}</text>`);
  }
  parts.push(`<text x="14" y="${top + plotH / 2}" transform="rotate(-90 14 ${top + plotH / 2})" text-anchor="middle">${escapeXml(options.unit)}</text>`);
  options.categories.forEach((category, c) => {
    const x0 = left + c * groupW + 3;
    options.series.forEach((s, k) => {
      const v = s.values[c];
      if (v === null || v === undefined || !Number.isFinite(v)) return;
      parts.push(`<rect x="${(x0 + k * barW).toFixed(1)}" y="${y(v).toFixed(1)}" width="${(barW - 1).toFixed(1)}" height="${(top + plotH - y(v)).toFixed(1)}" fill="${PALETTE[k % PALETTE.length]}"><title>${escapeXml(`${s.name} · ${category}: ${Number(v.toPrecision(4))} ${options.unit}`)}</title></rect>`);
    });
    const cx = x0 + groupW / 2;
    parts.push(`<text x="${cx.toFixed(1)}" y="${top + plotH + 12}" transform="rotate(45 ${cx.toFixed(1)} ${top + plotH + 12})">${escapeXml(category)}</text>`);
  });
  options.series.forEach((s, k) => {
    const lx = left + k * 200;
    parts.push(`<rect x="${lx}" y="${height - 16}" width="10" height="10" fill="${PALETTE[k % PALETTE.length]}"/><text x="${lx + 14}" y="${height - 7}">${escapeXml(s.name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

/** A histogram of durations from histogram buckets (upper edge in ms, count), log-spaced x axis. */
export function latencyHistogramSvg(options: { title: string; series: { name: string; buckets: { upperMs: number; count: number }[] }[]; width?: number; height?: number }): string {
  const width = options.width ?? 720;
  const height = options.height ?? 320;
  const left = 60, right = 16, top = 40, bottom = 50;
  const plotW = width - left - right, plotH = height - top - bottom;
  const all = options.series.flatMap((s) => s.buckets.filter((b) => b.count > 0));
  const minX = Math.max(1e-4, Math.min(...all.map((b) => b.upperMs)));
  const maxX = Math.max(minX * 10, ...all.map((b) => b.upperMs));
  const lx = (v: number) => left + ((Math.log10(v) - Math.log10(minX)) / (Math.log10(maxX) - Math.log10(minX))) * plotW;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="11">`);
  parts.push(`<rect width="${width}" height="${height}" fill="#fff"/>`);
  parts.push(`<text x="${left}" y="20" font-size="14" font-weight="bold">${escapeXml(options.title)}</text>`);
  for (let e = Math.ceil(Math.log10(minX)); e <= Math.floor(Math.log10(maxX)); e++) {
    const x = lx(10 ** e);
    parts.push(`<line x1="${x.toFixed(1)}" x2="${x.toFixed(1)}" y1="${top}" y2="${top + plotH}" stroke="#e5e7eb"/><text x="${x.toFixed(1)}" y="${top + plotH + 14}" text-anchor="middle">${10 ** e >= 1 ? 10 ** e : (10 ** e).toPrecision(1)} ms</text>`);
  }
  options.series.forEach((s, k) => {
    const total = s.buckets.reduce((a, b) => a + b.count, 0) || 1;
    const maxShare = Math.max(...s.buckets.map((b) => b.count / total), 1e-9);
    const points = s.buckets.filter((b) => b.count > 0).map((b) => `${lx(b.upperMs).toFixed(1)},${(top + plotH - (b.count / total / maxShare) * plotH).toFixed(1)}`);
    parts.push(`<polyline fill="none" stroke="${PALETTE[k % PALETTE.length]}" stroke-width="1.5" points="${points.join(' ')}"/>`);
    parts.push(`<rect x="${left + k * 220}" y="${height - 16}" width="10" height="10" fill="${PALETTE[k % PALETTE.length]}"/><text x="${left + k * 220 + 14}" y="${height - 7}">${escapeXml(s.name)}</text>`);
  });
  parts.push(`<text x="14" y="${top + plotH / 2}" transform="rotate(-90 14 ${top + plotH / 2})" text-anchor="middle">share (normalised)</text>`);
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

import { describe, expect, it } from 'vitest';
import { barChartSvg, LatencyHistogram, latencyHistogramSvg } from '../index.js';

describe('SVG charts', () => {
  it('draws one bar per series and category, scaled to the largest value, with escaped labels', () => {
    const svg = barChartSvg({ title: 'Error <per> joint', categories: ['nose', 'left_eye'], series: [{ name: 'model', values: [100, 50] }, { name: 'baseline', values: [200, null] }], unit: 'mm' });
    expect(svg.startsWith('<svg')).toBe(true);
    expect(svg).toContain('Error &lt;per&gt; joint');
    expect(svg.match(/<rect x=/g)!.length).toBe(3 + 2); // three bars, two legend swatches
    expect(svg).toContain('baseline · nose: 200 mm');
  });

  it('draws a latency histogram from recorded durations', () => {
    const h = new LatencyHistogram();
    for (const ms of [0.01, 0.02, 0.02, 1, 5]) h.record(ms);
    expect(h.buckets().reduce((a, b) => a + b.count, 0)).toBe(5);
    const svg = latencyHistogramSvg({ title: 'hop latency', series: [{ name: 'wiflow', buckets: h.buckets() }] });
    expect(svg).toContain('<polyline');
    expect(svg).toContain('1 ms');
  });
});

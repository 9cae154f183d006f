import type { RoomInfo } from '../api/studio';
import { COLORS, colorOf, type LiveFrame } from './types';

/** Heat map cell (metres). */
export const HEAT_CELL = 0.25;
/** Space kept around the room for the scale and axis labels (CSS px). */
const MARGIN = { left: 30, right: 14, top: 14, bottom: 34 };

/** Metres shown: the room when known, else what people and zones have covered (at least 4 × 4 m). */
export function floorExtent(room: RoomInfo | null, trails: Map<number, { x: number; y: number }[]>): { width: number; depth: number } {
  if (room) return { width: room.width, depth: room.depth };
  let width = 4;
  let depth = 4;
  for (const t of trails.values()) for (const p of t) (width = Math.max(width, p.x + 0.5)), (depth = Math.max(depth, p.y + 0.5));
  return { width, depth };
}

/** A canvas height that shows a room of this shape at the given width (CSS px). */
export function floorHeightFor(width: number, extent: { width: number; depth: number }): number {
  const inner = width - MARGIN.left - MARGIN.right;
  return Math.min(560, Math.max(220, (inner * extent.depth) / extent.width + MARGIN.top + MARGIN.bottom));
}

/** A "nice" scale bar length (metres) near a quarter of the room width. */
function scaleBar(width: number): number {
  const target = width / 4;
  return [0.5, 1, 2, 5, 10, 20, 50].reduce((best, v) => (Math.abs(v - target) < Math.abs(best - target) ? v : best), 1);
}

/**
 * The floor plan to scale: room outline with a metre grid and scale bar, named zones,
 * radios (transmitters ▲, receivers ■), heat map, each track's trail and the people now.
 */
export function drawFloor(ctx: CanvasRenderingContext2D, width: number, height: number, frame: LiveFrame | null, room: RoomInfo | null, trails: Map<number, { x: number; y: number }[]>, heat: Map<string, number>): void {
  const extent = floorExtent(room, trails);
  const s = Math.min((width - MARGIN.left - MARGIN.right) / extent.width, (height - MARGIN.top - MARGIN.bottom) / extent.depth);
  const ox = MARGIN.left + (width - MARGIN.left - MARGIN.right - extent.width * s) / 2;
  const oy = MARGIN.top + (height - MARGIN.top - MARGIN.bottom - extent.depth * s) / 2;
  // Room frame: x to the right, y up (the floor seen from above).
  const X = (x: number) => ox + x * s;
  const Y = (y: number) => oy + (extent.depth - y) * s;
  ctx.fillStyle = '#f8fafc';
  ctx.fillRect(0, 0, width, height);
  ctx.fillStyle = '#fff';
  ctx.fillRect(X(0), Y(extent.depth), extent.width * s, extent.depth * s);

  // Metre grid.
  ctx.strokeStyle = '#e5e7eb';
  ctx.lineWidth = 1;
  ctx.font = '11px system-ui, sans-serif';
  ctx.fillStyle = '#64748b';
  for (let m = 0; m <= extent.width + 1e-9; m++) {
    ctx.beginPath();
    ctx.moveTo(Math.round(X(m)) + 0.5, Y(0));
    ctx.lineTo(Math.round(X(m)) + 0.5, Y(extent.depth));
    ctx.stroke();
    ctx.textAlign = 'center';
    ctx.fillText(String(m), X(m), Y(0) + 13);
  }
  for (let m = 0; m <= extent.depth + 1e-9; m++) {
    ctx.beginPath();
    ctx.moveTo(X(0), Math.round(Y(m)) + 0.5);
    ctx.lineTo(X(extent.width), Math.round(Y(m)) + 0.5);
    ctx.stroke();
    ctx.textAlign = 'right';
    ctx.fillText(String(m), X(0) - 4, Y(m) + 4);
  }
  ctx.textAlign = 'left';

  // Heat map of where people were.
  const peak = Math.max(1, ...heat.values());
  for (const [cell, n] of heat) {
    const [cx, cy] = cell.split(',').map(Number);
    ctx.fillStyle = `rgba(255, 80, 0, ${(0.5 * n) / peak})`;
    ctx.fillRect(X(cx * HEAT_CELL), Y((cy + 1) * HEAT_CELL), HEAT_CELL * s, HEAT_CELL * s);
  }

  // Zones, named.
  for (const z of room?.zones ?? []) {
    if (z.polygon.length < 3) continue;
    ctx.beginPath();
    z.polygon.forEach(([x, y], i) => (i === 0 ? ctx.moveTo(X(x), Y(y)) : ctx.lineTo(X(x), Y(y))));
    ctx.closePath();
    // A zone covering the whole room is outlined only, so it does not hide the others.
    const area = Math.abs(z.polygon.reduce((a, [x, y], i) => { const [nx, ny] = z.polygon[(i + 1) % z.polygon.length]; return a + x * ny - nx * y; }, 0) / 2);
    if (area < 0.8 * extent.width * extent.depth) {
      ctx.fillStyle = 'rgba(59, 130, 246, 0.10)';
      ctx.fill();
    }
    ctx.setLineDash([5, 3]);
    ctx.strokeStyle = '#3b82f6';
    ctx.stroke();
    ctx.setLineDash([]);
    const minX = Math.min(...z.polygon.map((p) => p[0]));
    const maxY = Math.max(...z.polygon.map((p) => p[1]));
    ctx.fillStyle = '#1d4ed8';
    ctx.font = '12px system-ui, sans-serif';
    // Inside the room even for a zone at its right wall.
    ctx.fillText(z.name, Math.max(X(0) + 4, Math.min(X(minX) + 4, X(extent.width) - ctx.measureText(z.name).width - 4)), Y(maxY) + 14);
  }

  // Room outline.
  if (room) {
    ctx.strokeStyle = '#334155';
    ctx.lineWidth = 3;
    ctx.strokeRect(X(0), Y(extent.depth), extent.width * s, extent.depth * s);
  }

  // Scale bar, bottom left under the room.
  const bar = scaleBar(extent.width);
  ctx.strokeStyle = '#111';
  ctx.lineWidth = 2;
  const by = height - 8;
  ctx.beginPath();
  ctx.moveTo(X(0), by - 4);
  ctx.lineTo(X(0), by);
  ctx.lineTo(X(bar), by);
  ctx.lineTo(X(bar), by - 4);
  ctx.stroke();
  ctx.fillStyle = '#111';
  ctx.font = '11px system-ui, sans-serif';
  ctx.fillText(`${bar} m`, X(bar) + 6, by);

  // Radios: transmitters as triangles, receivers as squares, with their ids.
  for (const r of room?.radios ?? []) {
    const x = X(r.x);
    const y = Y(r.y);
    ctx.fillStyle = r.role === 'tx' ? '#ea580c' : '#0f766e';
    ctx.beginPath();
    if (r.role === 'tx') {
      ctx.moveTo(x, y - 7);
      ctx.lineTo(x + 7, y + 6);
      ctx.lineTo(x - 7, y + 6);
      ctx.closePath();
    } else ctx.rect(x - 6, y - 6, 12, 12);
    ctx.fill();
    ctx.font = '11px system-ui, sans-serif';
    const label = `${r.id} (${r.role})`;
    const w = ctx.measureText(label).width;
    // Inside the room, on a white halo so grid lines and zones do not cut through it.
    const lx = Math.min(Math.max(x - w / 2, X(0) + 3), X(extent.width) - w - 3);
    const ly = y < oy + 18 ? y + 20 : y - 10;
    ctx.strokeStyle = '#fff';
    ctx.lineWidth = 3;
    ctx.strokeText(label, lx, ly);
    ctx.fillText(label, lx, ly);
  }

  // Trails, then the people now with their track ids.
  for (const [track, trail] of trails) {
    ctx.strokeStyle = COLORS[Math.abs(track) % COLORS.length];
    ctx.globalAlpha = 0.6;
    ctx.lineWidth = 1.5;
    ctx.beginPath();
    trail.forEach((p, i) => (i === 0 ? ctx.moveTo(X(p.x), Y(p.y)) : ctx.lineTo(X(p.x), Y(p.y))));
    ctx.stroke();
    ctx.globalAlpha = 1;
  }
  for (const p of frame?.persons ?? []) {
    if (!p.position) continue;
    const x = X(p.position.x);
    const y = Y(p.position.y);
    ctx.fillStyle = colorOf(p);
    ctx.beginPath();
    ctx.arc(x, y, 8, 0, Math.PI * 2);
    ctx.fill();
    ctx.strokeStyle = '#fff';
    ctx.lineWidth = 2;
    ctx.stroke();
    ctx.fillStyle = '#111';
    ctx.font = 'bold 12px system-ui, sans-serif';
    ctx.fillText(`#${p.track ?? p.id ?? '?'}${p.activity ? ` ${p.activity}` : ''}`, x + 11, y + 4);
  }
}

import { colorOf, type LiveFrame } from './types';

/** COCO-17 limbs by keypoint index. */
const LIMBS: [number, number][] = [
  [0, 1], [0, 2], [1, 3], [2, 4], [5, 6], [5, 7], [7, 9], [6, 8], [8, 10], [5, 11], [6, 12], [11, 12], [11, 13], [13, 15], [12, 14], [14, 16],
];

/** Every person's skeleton in the virtual camera's image plane (`image` px), fitted into `width` × `height` CSS px. */
export function drawSkeletons(ctx: CanvasRenderingContext2D, width: number, height: number, frame: LiveFrame | null, image: { width: number; height: number }): void {
  ctx.fillStyle = '#111';
  ctx.fillRect(0, 0, width, height);
  if (!frame) return;
  let maxX = image.width;
  let maxY = image.height;
  for (const p of frame.persons) for (const k of p.keypoints) (maxX = Math.max(maxX, k.x)), (maxY = Math.max(maxY, k.y));
  const s = Math.min(width / maxX, height / maxY);
  const ox = (width - maxX * s) / 2;
  const oy = (height - maxY * s) / 2;
  ctx.strokeStyle = '#333';
  ctx.strokeRect(ox + 0.5, oy + 0.5, maxX * s - 1, maxY * s - 1);
  ctx.font = '12px system-ui, sans-serif';
  for (const p of frame.persons) {
    const color = colorOf(p);
    ctx.strokeStyle = color;
    ctx.fillStyle = color;
    ctx.lineWidth = 3;
    for (const [a, b] of LIMBS) {
      const ka = p.keypoints[a];
      const kb = p.keypoints[b];
      if (!ka || !kb || !ka.visible || !kb.visible) continue;
      ctx.beginPath();
      ctx.moveTo(ox + ka.x * s, oy + ka.y * s);
      ctx.lineTo(ox + kb.x * s, oy + kb.y * s);
      ctx.stroke();
    }
    for (const k of p.keypoints) if (k.visible) ctx.fillRect(ox + k.x * s - 2, oy + k.y * s - 2, 4, 4);
    if (p.box) {
      ctx.lineWidth = 1;
      ctx.strokeRect(ox + p.box.x * s, oy + p.box.y * s, p.box.width * s, p.box.height * s);
      ctx.fillText(`#${p.track ?? p.id ?? '?'} ${(p.confidence * 100).toFixed(0)}%${p.activity ? ` ${p.activity}` : ''}`, ox + p.box.x * s, Math.max(12, oy + p.box.y * s - 4));
    }
  }
}

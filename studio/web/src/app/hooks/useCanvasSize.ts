import { useEffect, useState, type RefObject } from 'react';

/** A canvas's size in CSS pixels and the device pixel ratio its backing store uses. */
export interface CanvasSize {
  width: number;
  height: number;
  dpr: number;
}

/**
 * Size a canvas to fill its parent's width (height from `heightFor(width)`), with a backing
 * store of CSS size × devicePixelRatio so lines and text stay sharp; follows resizes.
 */
export function useCanvasSize(ref: RefObject<HTMLCanvasElement | null>, heightFor: (width: number) => number): CanvasSize | null {
  const [size, setSize] = useState<CanvasSize | null>(null);
  useEffect(() => {
    const canvas = ref.current;
    const parent = canvas?.parentElement;
    if (!canvas || !parent) return;
    const apply = () => {
      const style = getComputedStyle(parent);
      const width = Math.max(1, Math.floor(parent.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)));
      const height = Math.max(1, Math.round(heightFor(width)));
      const dpr = window.devicePixelRatio || 1;
      canvas.style.width = `${width}px`;
      canvas.style.height = `${height}px`;
      // Assigning the backing size clears the canvas: only when it changes (the next draw follows).
      if (canvas.width !== Math.round(width * dpr)) canvas.width = Math.round(width * dpr);
      if (canvas.height !== Math.round(height * dpr)) canvas.height = Math.round(height * dpr);
      setSize((s) => (s && s.width === width && s.height === height && s.dpr === dpr ? s : { width, height, dpr }));
    };
    apply();
    const observer = new ResizeObserver(apply);
    observer.observe(parent);
    return () => observer.disconnect();
  }, [ref, heightFor]);
  return size;
}

/** A 2D context drawing in CSS pixels on a canvas sized by useCanvasSize. */
export function contextIn(canvas: HTMLCanvasElement | null, size: CanvasSize | null): CanvasRenderingContext2D | null {
  const ctx = canvas?.getContext('2d');
  if (!ctx || !size) return null;
  ctx.setTransform(size.dpr, 0, 0, size.dpr, 0, 0);
  return ctx;
}

// Where the editor opens: the whole flow when it fits at a readable zoom, else the start of
// the flow at that zoom (pan for the rest; the minimap shows all). Framework-free (xyflow's habit).

/** A rectangle in flow coordinates. */
export interface Bounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** How to open a flow in a canvas of a given size. */
export interface OpeningOptions {
  /** Canvas size in screen pixels. */
  width: number;
  height: number;
  /** Screen pixels kept free around the flow. */
  padding: number;
  /** Screen pixels kept free at the bottom (the minimap lives there). */
  reserveBottom: number;
  /** The smallest zoom at which node text is still readable. */
  readableZoom: number;
  /** Never zoom in further than this. */
  maxZoom: number;
}

/** The viewport `{x, y, zoom}` to open a flow with the given node bounds. */
export function openingViewport(bounds: Bounds, o: OpeningOptions): { x: number; y: number; zoom: number } {
  const usableWidth = Math.max(1, o.width - 2 * o.padding);
  const usableHeight = Math.max(1, o.height - 2 * o.padding - o.reserveBottom);
  const fitted = Math.min(usableWidth / Math.max(1, bounds.width), usableHeight / Math.max(1, bounds.height), o.maxZoom);
  const zoom = Math.max(fitted, Math.min(o.readableZoom, o.maxZoom));
  const shownWidth = bounds.width * zoom;
  const shownHeight = bounds.height * zoom;
  // Centred where it fits; otherwise its start (left, top) at the padding: sources come first.
  const x = shownWidth <= usableWidth ? o.padding + (usableWidth - shownWidth) / 2 - bounds.x * zoom : o.padding - bounds.x * zoom;
  const y = shownHeight <= usableHeight ? o.padding + (usableHeight - shownHeight) / 2 - bounds.y * zoom : o.padding - bounds.y * zoom;
  return { x, y, zoom };
}

import type { CanvasPoint } from '../picking.js';
import type { Tool } from './tool.js';

/** How far, in pixels, a press may move before its release and still count as a click (more is the camera's drag). */
const CLICK_SLOP_PX = 4;

/**
 * Routes the canvas's pointer input and the page's keys to the active tool (null: none, as once
 * the session is refused). The camera's controls listen to the same canvas on their own.
 */
export function routeInputToTool(canvas: HTMLCanvasElement, activeTool: () => Tool | null): void {
  let down: { x: number; y: number } | null = null;
  canvas.addEventListener('pointerdown', (event) => {
    down = { x: event.clientX, y: event.clientY };
  });
  canvas.addEventListener('pointerup', (event) => {
    if (!down || Math.hypot(event.clientX - down.x, event.clientY - down.y) > CLICK_SLOP_PX) return;
    down = null;
    activeTool()?.click?.({ on: 'canvas', at: canvasPoint(canvas, event) });
  });
  canvas.addEventListener('dblclick', () => activeTool()?.doubleClick?.());
  canvas.addEventListener('pointermove', (event) => {
    const tool = activeTool();
    if (tool?.pointerMove) tool.pointerMove(canvasPoint(canvas, event));
  });
  window.addEventListener('keydown', (event) => activeTool()?.key?.(event));
}

function canvasPoint(canvas: HTMLCanvasElement, event: PointerEvent): CanvasPoint {
  const rect = canvas.getBoundingClientRect();
  return { x: ((event.clientX - rect.left) / rect.width) * 2 - 1, y: -((event.clientY - rect.top) / rect.height) * 2 + 1 };
}

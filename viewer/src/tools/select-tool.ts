import type { ViewerEvents } from '../protocol.js';
import type { Tool, ToolClick, ToolContext } from './tool.js';

/**
 * The first tool, active from the start: a label click selects its point of interest
 * (poiSelected), a click on a zone selects it (zoneSelected), a click on a placed model does
 * nothing, a click on the cloud picks the point under it (shown, and sent as pointPicked).
 */
export class SelectTool implements Tool {
  readonly name = 'select';
  /** The last point picked, for the viewer's status (window.rdpViewerStatus). */
  lastPick: ViewerEvents['pointPicked'] | null = null;

  constructor(private readonly viewer: ToolContext) {}

  click(click: ToolClick): void {
    if (click.on === 'pointOfInterest') {
      const { id, name, position } = click.pointOfInterest;
      this.viewer.emit('poiSelected', { id, name, position });
      return;
    }
    const hit = this.viewer.pick(click.at);
    if (!hit || hit.kind === 'modelAsset') return;
    if (hit.kind === 'zone') {
      const zone = this.viewer.zone(hit.id);
      if (zone) this.viewer.emit('zoneSelected', { id: zone.id, name: zone.name });
      return;
    }
    const { position, distance } = hit;
    this.lastPick = { position, layerBundleId: hit.layerBundleId, ...(distance !== undefined ? { distance } : {}) };
    // A comparison layer's point says its distance too (docs/comparisons-viewer.md).
    const distanceText =
      distance === undefined ? '' : distance === null ? ', beyond the comparison' : `, distance ${distance.toFixed(3)} m`;
    this.viewer.messages.show(
      'pick',
      `Picked x ${position.x.toFixed(3)}, y ${position.y.toFixed(3)}, z ${position.z.toFixed(3)}${distanceText}`,
      'info',
    );
    this.viewer.emit('pointPicked', this.lastPick);
  }
}

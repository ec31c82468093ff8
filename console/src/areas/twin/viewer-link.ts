import { connectToViewer, type ViewerConnection } from '../../../../viewer/src/connect-viewer.js';
import type { ViewerEventArguments } from '../../../../viewer/src/protocol.js';

// The viewer's protocol is declared once, in the viewer (docs/viewer.md, "The postMessage API").
export type {
  CameraState,
  ClipBox,
  ColorMode,
  Measurement as ViewerMeasurement,
  RemoteViewerMethods as ViewerRemote,
  ToolName,
} from '../../../../viewer/src/protocol.js';
// A measurement's value in the same words as the viewer's label (docs/viewer.md, "Measuring").
export { formatValue as formatMeasurementValue } from '../../../../viewer/src/tools/measure-math.js';

export type ViewerListener = (...event: ViewerEventArguments) => void;

/**
 * Connects to the viewer framed in `iframe` with penpal (the protocol rdp-embed.js speaks, done
 * here so the console loads no script but its own), taking messages from the viewer's origin
 * only. Answers the remote methods and a function that ends the connection.
 */
export function connectViewer(iframe: HTMLIFrameElement, origin: string, onEvent: ViewerListener): ViewerConnection {
  if (!iframe.contentWindow) throw new Error('The 3D view is not in the page');
  return connectToViewer(iframe.contentWindow, origin, onEvent);
}

import { connect, WindowMessenger } from 'penpal';
import type { Vector3 } from './twin-api.js';

/** What the viewer's postMessage API sends (docs/viewer.md, "Events"), as far as the console listens. */
export interface ViewerEvents {
  ready: { version: string; twinId: string; siteId: string; name: string };
  poiSelected: { id: string; name: string; position: Vector3 };
  zoneSelected: { id: string; name: string };
  cameraChanged: CameraState;
  pointPicked: { position: Vector3; layerBundleId: string };
  error: { code: 'sessionRefused' | 'layerFailed' | 'twinFailed'; message: string };
}

export type CameraState = { position: Vector3; target: Vector3; fov: number };

/** The viewer's methods the console calls; each answers a promise. */
export interface ViewerRemote {
  flyTo(id: string, options?: { durationMs?: number }): Promise<CameraState>;
  getCamera(): Promise<CameraState>;
  setCamera(camera: CameraState): Promise<CameraState>;
}

export type ViewerListener = <K extends keyof ViewerEvents>(name: K, payload: ViewerEvents[K]) => void;

/**
 * Connects to the viewer framed in `iframe` with penpal (the protocol rdp-embed.js speaks, done
 * here so the console loads no script but its own), taking messages from the viewer's origin
 * only. Answers the remote methods and a function that ends the connection.
 */
export function connectViewer(iframe: HTMLIFrameElement, origin: string, onEvent: ViewerListener) {
  if (!iframe.contentWindow) throw new Error('The 3D view is not in the page');
  const messenger = new WindowMessenger({ remoteWindow: iframe.contentWindow, allowedOrigins: [origin] });
  const connection = connect({
    messenger,
    methods: {
      event(name: string, payload: unknown) {
        onEvent(name as keyof ViewerEvents, payload as never);
      },
    },
  });
  return { remote: connection.promise as unknown as Promise<ViewerRemote>, destroy: () => connection.destroy() };
}

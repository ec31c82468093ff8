import { connect, WindowMessenger } from 'penpal';
import type {
  CameraState,
  PointOfInterest,
  Vector3,
  ViewerEventName,
  ViewerEvents,
  ViewerMethods,
  VisibilityTarget,
  Zone,
} from './viewer-types.js';

/**
 * rdp-embed.js, the integrator's side of the viewer's postMessage API (docs/viewer.md): include
 * it on the page that frames the viewer, then
 *
 *   const viewer = await RdpViewer.connect(iframe);            // or {origin: 'https://platform'}
 *   viewer.on('poiSelected', (poi) => ...);
 *   await viewer.flyTo(poiId);
 *
 * Messages are taken only from the iframe's window at the viewer's origin (penpal's allow-list).
 */
export interface ConnectOptions {
  /** The viewer's origin (the platform's); default: the origin of the iframe's src. */
  origin?: string;
  /** Give up after this many milliseconds (default: wait as long as it takes). */
  timeoutMs?: number;
}

type Listener<K extends ViewerEventName> = (payload: ViewerEvents[K]) => void;

export interface ConnectedViewer {
  on<K extends ViewerEventName>(name: K, listener: Listener<K>): () => void;
  getPointsOfInterest(): Promise<PointOfInterest[]>;
  getZones(): Promise<Zone[]>;
  getCamera(): Promise<CameraState>;
  flyTo(id: string, options?: { durationMs?: number }): Promise<CameraState>;
  setCamera(camera: { position: Vector3; target: Vector3; fov?: number }): Promise<CameraState>;
  setVisibility(target: VisibilityTarget, visible: boolean): Promise<number>;
  destroy(): void;
}

type RemoteViewer = {
  [K in keyof ViewerMethods]: (...args: Parameters<ViewerMethods[K]>) => Promise<Awaited<ReturnType<ViewerMethods[K]>>>;
};

export async function connectViewer(iframe: HTMLIFrameElement, options: ConnectOptions = {}): Promise<ConnectedViewer> {
  const origin = options.origin ?? new URL(iframe.src, location.href).origin;
  if (!iframe.contentWindow) throw new Error('RdpViewer.connect: the iframe is not in the document');
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const messenger = new WindowMessenger({ remoteWindow: iframe.contentWindow, allowedOrigins: [origin] });
  // The viewer sends `ready` as soon as it is connected: kept, so a listener added later still hears it.
  let ready: unknown;
  const connection = connect({
    messenger,
    timeout: options.timeoutMs,
    methods: {
      event(name: string, payload: unknown) {
        if (name === 'ready') ready = payload;
        for (const listener of listeners.get(name) ?? []) listener(payload);
      },
    },
  });
  const remote = (await connection.promise) as unknown as RemoteViewer;
  return {
    on(name, listener) {
      const set = listeners.get(name) ?? new Set();
      listeners.set(name, set);
      set.add(listener as (payload: unknown) => void);
      if (name === 'ready' && ready !== undefined) queueMicrotask(() => (listener as (payload: unknown) => void)(ready));
      return () => set.delete(listener as (payload: unknown) => void);
    },
    getPointsOfInterest: () => remote.getPointsOfInterest(),
    getZones: () => remote.getZones(),
    getCamera: () => remote.getCamera(),
    flyTo: (id, flyOptions) => remote.flyTo(id, flyOptions),
    setCamera: (camera) => remote.setCamera(camera),
    setVisibility: (target, visible) => remote.setVisibility(target, visible),
    destroy: () => connection.destroy(),
  };
}

export { connectViewer as connect };

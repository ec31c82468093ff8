import { connectToViewer } from './connect-viewer.js';
import { type RemoteViewerMethods, VIEWER_METHOD_NAMES, type ViewerEventName, type ViewerEvents } from './protocol.js';

/**
 * rdp-embed.js, the integrator's side of the viewer's postMessage API (docs/viewer.md; the
 * messages in protocol.ts): include it on the page that frames the viewer, then
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

/** The viewer's methods (protocol.ts), event listeners, and the end of the connection. */
export interface ConnectedViewer extends RemoteViewerMethods {
  on<K extends ViewerEventName>(name: K, listener: Listener<K>): () => void;
  destroy(): void;
}

export async function connectViewer(iframe: HTMLIFrameElement, options: ConnectOptions = {}): Promise<ConnectedViewer> {
  const origin = options.origin ?? new URL(iframe.src, location.href).origin;
  if (!iframe.contentWindow) throw new Error('RdpViewer.connect: the iframe is not in the document');
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  // The viewer sends `ready` as soon as it is connected: kept, so a listener added later still hears it.
  let ready: unknown;
  const connection = connectToViewer(
    iframe.contentWindow,
    origin,
    (name, payload) => {
      if (name === 'ready') ready = payload;
      for (const listener of listeners.get(name) ?? []) listener(payload);
    },
    options.timeoutMs,
  );
  const remote = await connection.remote;
  // Each of the viewer's methods (protocol.ts), forwarded as it is.
  const methods = Object.fromEntries(
    VIEWER_METHOD_NAMES.map((name) => [name, (...args: unknown[]) => (remote[name] as (...args: unknown[]) => unknown)(...args)]),
  ) as unknown as RemoteViewerMethods;
  return {
    ...methods,
    on(name, listener) {
      const set = listeners.get(name) ?? new Set();
      listeners.set(name, set);
      set.add(listener as (payload: unknown) => void);
      if (name === 'ready' && ready !== undefined) queueMicrotask(() => (listener as (payload: unknown) => void)(ready));
      return () => set.delete(listener as (payload: unknown) => void);
    },
    destroy: () => connection.destroy(),
  };
}

export { connectViewer as connect };

import { connect, WindowMessenger } from 'penpal';
import type { ParentMethods, RemoteViewerMethods, ViewerEventArguments } from './protocol.js';

export interface ViewerConnection {
  /** The viewer's methods, once the viewer has answered the handshake. */
  remote: Promise<RemoteViewerMethods>;
  destroy(): void;
}

/**
 * The parent's side of the viewer's protocol (protocol.ts), shared by rdp-embed.js (embed.ts) and
 * the console: penpal to the viewer's window, taking messages from `origin` only, each event
 * handed to `onEvent`. Without `timeoutMs` it waits as long as the viewer takes.
 */
export function connectToViewer(
  viewerWindow: Window,
  origin: string,
  onEvent: (...event: ViewerEventArguments) => void,
  timeoutMs?: number,
): ViewerConnection {
  const messenger = new WindowMessenger({ remoteWindow: viewerWindow, allowedOrigins: [origin] });
  const methods = { event: onEvent } satisfies ParentMethods;
  const connection = connect({ messenger, timeout: timeoutMs, methods });
  return { remote: connection.promise as unknown as Promise<RemoteViewerMethods>, destroy: () => connection.destroy() };
}

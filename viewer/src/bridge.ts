import { connect, WindowMessenger } from 'penpal';
import {
  type ParentMethods,
  type PlainReadyMessage,
  READY_MESSAGE_TYPE,
  type ViewerEventArguments,
  type ViewerEventName,
  type ViewerEvents,
  type ViewerMethods,
} from './protocol.js';

/**
 * The viewer's side of the postMessage API (protocol.ts): penpal carries the methods (the parent calls them)
 * and the events (the viewer calls the parent's `event`), with the origin allow-list of the
 * page's configuration. An empty list (a page opened on its own, or '*' which the configuration
 * never holds) connects nothing: the viewer never talks to an origin it was not given.
 */
export class ParentBridge {
  private parent: ParentMethods | null = null;
  private readyPayload: ViewerEvents['ready'] | null = null;

  constructor(
    private readonly allowedOrigins: string[],
    methods: ViewerMethods,
  ) {
    const origins = allowedOrigins.filter((origin) => origin !== '*');
    if (window.parent === window || origins.length === 0) return;
    const messenger = new WindowMessenger({ remoteWindow: window.parent, allowedOrigins: origins });
    const connection = connect({ messenger, methods: methods as unknown as Record<string, () => unknown> });
    connection.promise.then(
      (parent) => {
        this.parent = parent as unknown as ParentMethods;
        if (this.readyPayload) this.send('ready', this.readyPayload);
      },
      () => undefined,
    );
  }

  /** Sends an event to a connected parent; before the connection only `ready` is kept (and sent on connecting). */
  emit<K extends ViewerEventName>(name: K, payload: ViewerEvents[K]): void {
    if (name === 'ready') this.readyPayload = payload as ViewerEvents['ready'];
    if (this.parent) this.send(...([name, payload] as ViewerEventArguments));
  }

  /** The plain `{type: "rdp.ready", version}` to each allowed origin (never '*'), no handshake needed. */
  postPlainReady(version: string): void {
    if (window.parent === window) return;
    for (const origin of this.allowedOrigins) {
      if (origin === '*') continue;
      const message: PlainReadyMessage = { type: READY_MESSAGE_TYPE, version };
      window.parent.postMessage(message, origin);
    }
  }

  private send(...event: ViewerEventArguments): void {
    Promise.resolve(this.parent?.event(...event)).catch(() => undefined);
  }
}

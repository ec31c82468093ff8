import { connect, WindowMessenger } from 'penpal';
import { READY_MESSAGE_TYPE, type ViewerEventName, type ViewerEvents, type ViewerMethods } from './viewer-types.js';

/** The parent's side as the viewer calls it: rdp-embed.js exposes `event`. */
type ParentMethods = { event(name: string, payload: unknown): void };

/**
 * The viewer's side of the postMessage API: penpal carries the methods (the parent calls them)
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
    const connection = connect<ParentMethods>({ messenger, methods: methods as unknown as Record<string, () => unknown> });
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
    if (this.parent) this.send(name, payload);
  }

  /** The plain `{type: "rdp.ready", version}` to each allowed origin (never '*'), no handshake needed. */
  postPlainReady(version: string): void {
    if (window.parent === window) return;
    for (const origin of this.allowedOrigins) {
      if (origin === '*') continue;
      window.parent.postMessage({ type: READY_MESSAGE_TYPE, version }, origin);
    }
  }

  private send(name: string, payload: unknown): void {
    Promise.resolve(this.parent?.event(name, payload)).catch(() => undefined);
  }
}

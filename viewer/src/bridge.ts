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
  /** Settles with `ready` (resolved) or the twin's failure (rejected); the methods wait for it. */
  private readonly loaded: Promise<void>;
  private settleLoaded!: { resolve: () => void; reject: (error: Error) => void };

  constructor(
    private readonly allowedOrigins: string[],
    methods: ViewerMethods,
  ) {
    this.loaded = new Promise((resolve, reject) => {
      this.settleLoaded = { resolve, reject };
    });
    this.loaded.catch(() => undefined);
    const origins = allowedOrigins.filter((origin) => origin !== '*');
    if (window.parent === window || origins.length === 0) return;
    const messenger = new WindowMessenger({ remoteWindow: window.parent, allowedOrigins: origins });
    const connection = connect({ messenger, methods: this.afterLoad(methods) });
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
    if (name === 'ready') {
      this.readyPayload = payload as ViewerEvents['ready'];
      this.settleLoaded.resolve();
    }
    const failure = name === 'error' ? (payload as ViewerEvents['error']) : null;
    if (failure && failure.code !== 'layerFailed') this.settleLoaded.reject(new Error(failure.message));
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

  /**
   * The methods, each answering once the twin is read (docs/viewer.md, "Methods"): the parent may
   * call as soon as it connects, before the scene has its origin, so a camera or a box set earlier
   * would land in the wrong frame and the layers' first framing would replace it.
   */
  private afterLoad(methods: ViewerMethods): Record<string, (...args: unknown[]) => Promise<unknown>> {
    const waiting: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    for (const [name, method] of Object.entries(methods) as [string, (...args: unknown[]) => unknown][]) {
      waiting[name] = async (...args) => {
        await this.loaded;
        return method(...args);
      };
    }
    return waiting;
  }

  private send(...event: ViewerEventArguments): void {
    Promise.resolve(this.parent?.event(...event)).catch(() => undefined);
  }
}

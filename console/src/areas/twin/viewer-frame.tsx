import { ok } from '@reality-data-platform/sdk/browser';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorNotice } from '../../ui/components.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import type { Selection, Vector3 } from './twin-api.js';
import { type CameraState, connectViewer, type ToolName, type ViewerMeasurement, type ViewerRemote } from './viewer-link.js';

type FrameStatus = { state: 'loading' } | { state: 'ready'; name: string } | { state: 'failed'; message: string };

/**
 * The platform's 3D viewer framed in the page (GET /v1/twin/{ctx}/iframe: a viewer address with a
 * short-lived token of the person's own, for this context only) and connected through its
 * postMessage API: a label clicked there selects the object here, a point clicked there is offered
 * as a position; the active tool, a finished measurement and a measurement's label clicked are
 * handed on (docs/viewer.md, "Events"). A change is shown through `remote.refresh()` (the page is
 * never loaded again for an edit); a new address (a renewed session) keeps the camera where the
 * person left it.
 */
export function ViewerFrame(props: {
  ctx: string;
  remote: { current: ViewerRemote | undefined };
  onSelect: (selection: Selection, name: string) => void;
  onPicked: (position: Vector3) => void;
  /** The view is ready (at each load): its remote methods answer. */
  onReady: (remote: ViewerRemote) => void;
  onToolChanged: (tool: ToolName) => void;
  onMeasurementCreated: (measurement: ViewerMeasurement) => void;
  onMeasurementSelected: (id: string | null) => void;
}) {
  const session = useSession();
  const [urlGeneration, setUrlGeneration] = useState(0);
  const address = useResource(
    async () => (await ok(session.api.GET('/v1/twin/{contextId}/iframe', { params: { path: { contextId: props.ctx } } }))).url,
    [props.ctx, urlGeneration],
  );
  const [status, setStatus] = useState<FrameStatus>({ state: 'loading' });
  const iframe = useRef<HTMLIFrameElement>(null);
  const camera = useRef<CameraState | undefined>(undefined);
  const renewed = useRef(false);
  const handlers = useRef(props);
  handlers.current = props;
  const url = address.data;

  useEffect(() => {
    const element = iframe.current;
    if (!element || !url) return;
    setStatus({ state: 'loading' });
    const link = connectViewer(element, new URL(url).origin, (name, payload) => {
      const events = handlers.current;
      if (name === 'ready') {
        setStatus({ state: 'ready', name: payload.name });
        const kept = camera.current;
        if (kept) void link.remote.then((remote) => remote.setCamera(kept)).catch(() => undefined);
        void link.remote.then((remote) => handlers.current.onReady(remote)).catch(() => undefined);
      } else if (name === 'toolChanged') {
        events.onToolChanged(payload.tool);
      } else if (name === 'measurementCreated') {
        events.onMeasurementCreated(payload.measurement);
      } else if (name === 'measurementSelected') {
        events.onMeasurementSelected(payload.id);
      } else if (name === 'cameraChanged') {
        camera.current = payload;
      } else if (name === 'poiSelected' || name === 'zoneSelected') {
        const { id, name: objectName } = payload;
        events.onSelect({ kind: name === 'poiSelected' ? 'pointOfInterest' : 'zone', id }, objectName);
      } else if (name === 'pointPicked') {
        events.onPicked(payload.position);
      } else if (name === 'error') {
        const { code, message } = payload;
        // The viewer's token lasts as long as an access token: past it, one new address.
        if (code === 'sessionRefused' && !renewed.current) {
          renewed.current = true;
          setUrlGeneration((generation) => generation + 1);
        } else setStatus({ state: 'failed', message });
      }
    });
    link.remote.then(
      (remote) => {
        handlers.current.remote.current = remote;
      },
      () => undefined,
    );
    return () => {
      handlers.current.remote.current = undefined;
      link.destroy();
    };
  }, [url]);

  return (
    <section class="viewer-pane" aria-label="3D view">
      {address.error ? (
        <ErrorNotice error={address.error} />
      ) : (
        url && <iframe key={url} ref={iframe} src={url} title="3D view of the twin" allow="fullscreen" />
      )}
      <p class={`viewer-status ${status.state}`} role="status">
        {status.state === 'ready'
          ? `3D view ready: ${status.name}.`
          : status.state === 'failed'
            ? `The 3D view could not show everything: ${status.message}`
            : 'Loading the 3D view…'}
      </p>
    </section>
  );
}

import { ok } from '@reality-data-platform/sdk/browser';
import { useRef, useState } from 'preact/hooks';
import { navigate, useLocation } from '../../router.js';
import { ErrorNotice, Link, Loading, PageTitle } from '../../ui/components.js';
import { useSession } from '../../ui/session-context.js';
import { usePagedList } from '../../ui/use-paged-list.js';
import { useResource } from '../../ui/use-resource.js';
import { Breadcrumbs } from '../nodes/breadcrumbs.js';
import { loadAncestors, readNode } from '../nodes/node-cache.js';
import type { NodeDetail } from '../nodes/node-kinds.js';
import { canWriteTree } from '../nodes/node-rights.js';
import { comparisonsHref } from './comparison-api.js';
import { DraftBar } from './draft-bar.js';
import { embedSessionsHref } from './embed-session-api.js';
import { LayersPanel } from './layers-panel.js';
import { MeasurementPanel } from './measurement-panel.js';
import { MetadataPanel } from './metadata-panel.js';
import { formatPosition, PoiPanel } from './poi-panel.js';
import {
  listMetadataTypes,
  listZones,
  type Measurement,
  type MetadataType,
  type Selection,
  type TwinContext,
  type TwinDraft,
  twinCentre,
  twinHref,
  type Vector3,
} from './twin-api.js';
import { ViewerFrame } from './viewer-frame.js';
import { formatMeasurementValue, type ToolName, type ViewerMeasurement, type ViewerRemote } from './viewer-link.js';
import { ToolHint, ViewerToolbar } from './viewer-toolbar.js';
import { ZonePanel } from './zone-panel.js';
import './twin.css';

/**
 * A site's twin (/twins/{siteId}, `?draft={draftId}` to work in a draft): the 3D view under its
 * toolbar, beside panels of its layers, points of interest, zones, measurements and the selected
 * object's metadata, all read and written through the context chosen in the draft bar.
 */
export function TwinView(props: { siteId: string }) {
  const session = useSession();
  const { siteId } = props;
  const draftId = useLocation().query.get('draft') ?? undefined;
  const site = useResource(async () => {
    const node = await readNode(session, siteId);
    return { node, ancestors: await loadAncestors(session, node) };
  }, [siteId]);
  const drafts = useResource(
    () => ok(session.api.GET('/v1/twin/{contextId}/drafts', { params: { path: { contextId: siteId }, query: { limit: 1000 } } })),
    // Read again on entering or leaving a draft: a new one is in the list, a published one says so.
    [siteId, draftId],
  );
  const types = useResource(() => listMetadataTypes(session), []);
  const [notice, setNotice] = useState<string>();

  if (!site.data || !drafts.data) {
    const error = site.error ?? drafts.error;
    return error ? <ErrorNotice error={error} /> : <Loading />;
  }
  const { node, ancestors } = site.data;
  const draft = draftId ? drafts.data.find((candidate) => candidate.id === draftId) : undefined;
  const mayEdit = canWriteTree(session) && (node.permissions?.includes('edit') ?? false);
  const context: TwinContext = {
    siteId,
    ctx: draft?.id ?? siteId,
    draft,
    canWrite: mayEdit && (!draft || draft.status === 'open'),
  };

  return (
    <section class="twin-screen">
      <Breadcrumbs ancestors={[...ancestors, node]} node={{ ...node, name: 'Twin', type: 'twin' }} />
      <PageTitle
        actions={
          <>
            <Link href={comparisonsHref(siteId)} class="button">
              Comparisons
            </Link>
            <Link href={embedSessionsHref(siteId)} class="button">
              Embed sessions
            </Link>
          </>
        }
      >{`Twin of ${node.name}`}</PageTitle>
      {notice && (
        <p class="notice success" role="status">
          {notice}
        </p>
      )}
      {draftId && !draft ? (
        <p class="notice error" role="alert">
          This site's twin has no such draft. It may belong to another site.
        </p>
      ) : (
        <TwinWorkspace
          key={context.ctx}
          site={node}
          context={context}
          drafts={drafts.data}
          mayEdit={mayEdit}
          types={types.data ?? []}
          onNotice={setNotice}
          onDraftsChanged={drafts.reload}
        />
      )}
    </section>
  );
}

/** The view and the panels of one context: everything in it starts afresh when the context changes. */
function TwinWorkspace(props: {
  site: NodeDetail;
  context: TwinContext;
  drafts: TwinDraft[];
  mayEdit: boolean;
  types: MetadataType[];
  onNotice: (message: string | undefined) => void;
  onDraftsChanged: () => void;
}) {
  const session = useSession();
  const { context } = props;
  const ctx = context.ctx;
  const twin = useResource(() => ok(session.api.GET('/v1/twin/{contextId}', { params: { path: { contextId: ctx } } })), [ctx]);
  const pois = usePagedList(
    (page) => session.api.GET('/v1/twin/{contextId}/points-of-interest', { params: { path: { contextId: ctx }, query: page } }),
    [ctx],
  );
  const zones = useResource(() => listZones(session, ctx), [ctx]);
  const measurements = usePagedList(
    (page) => session.api.GET('/v1/twin/{contextId}/measurements', { params: { path: { contextId: ctx }, query: page } }),
    [ctx],
  );
  const [tool, setTool] = useState<ToolName>();
  const [readyKey, setReadyKey] = useState(0);
  const [measureError, setMeasureError] = useState<unknown>();
  const [selection, setSelection] = useState<Selection>();
  const [picked, setPicked] = useState<Vector3>();
  const [changesKey, setChangesKey] = useState(0);
  const remote = useRef<ViewerRemote | undefined>(undefined);

  const objects = new Map<string, { name: string; updatedAt: string }>(
    [...(pois.items ?? []), ...(zones.data ?? []), ...(measurements.items ?? [])].map((object) => [object.id, object]),
  );
  const names = new Map([...objects].map(([id, object]) => [id, object.name]));
  const selected = selection && objects.get(selection.id);

  function select(next: Selection) {
    setSelection(next);
    // The view flies there; an object it does not show yet (just made) is no reason for an error.
    remote.current?.flyTo(next.id).catch(() => undefined);
  }
  function selectMeasurement(measurement: Measurement) {
    // The viewer draws the saved measurements and flies to them as to the other objects.
    select({ kind: 'measurement', id: measurement.id });
  }
  /**
   * The view shows the twin as the API answers it now (docs/viewer.md, refresh): its layers and
   * objects read again in place, the camera and the tool kept; the page is not loaded again.
   */
  function refreshView() {
    remote.current?.refresh().catch(() => undefined);
  }
  /** The view draws the saved measurements as the API lists them now (docs/viewer.md, showMeasurements). */
  function showMeasurementsInView() {
    remote.current?.showMeasurements().catch(() => undefined);
  }
  /**
   * A measuring tool finished one. The framed viewer's token is an embed session's, read-only
   * (docs/viewer.md, "Measuring"): it saves nothing (id null) and the console saves it for an
   * editor; one the viewer did save (id set) is only listed again.
   */
  async function measured(measurement: ViewerMeasurement) {
    const value = formatMeasurementValue(measurement.value, measurement.unit);
    setMeasureError(undefined);
    if (measurement.id === null) {
      if (!context.canWrite) {
        props.onNotice(`${measurement.name}: ${value}. Not saved: you may not change this twin.`);
        return;
      }
      try {
        const { name, kind, points } = measurement;
        await ok(
          session.api.POST('/v1/twin/{contextId}/measurements', {
            params: { path: { contextId: ctx } },
            body: { name, kind, points },
          }),
        );
      } catch (error) {
        setMeasureError(error);
        return;
      }
      // The view drew it unsaved: it now shows the saved one, whose label selects it.
      showMeasurementsInView();
    }
    props.onNotice(`Measurement ${measurement.name} saved: ${value}.`);
    measurements.reload();
    setChangesKey((key) => key + 1);
    if (context.draft) props.onDraftsChanged();
  }
  function changed(message: string) {
    props.onNotice(message);
    pois.reload();
    zones.reload();
    measurements.reload();
    refreshView();
    setChangesKey((key) => key + 1);
    if (context.draft) props.onDraftsChanged();
  }
  /** A measurement renamed or deleted in the panel: the view redraws the saved ones rather than loading again. */
  function measurementsChanged(message: string) {
    props.onNotice(message);
    measurements.reload();
    showMeasurementsInView();
    setChangesKey((key) => key + 1);
    if (context.draft) props.onDraftsChanged();
  }
  function leftDraft(message: string) {
    props.onNotice(message);
    props.onDraftsChanged();
    navigate(twinHref(context.siteId));
  }

  return (
    <>
      <DraftBar
        context={context}
        drafts={props.drafts}
        mayEdit={props.mayEdit}
        names={names}
        changesKey={changesKey}
        onPublished={leftDraft}
      />
      <ErrorNotice error={twin.error} />
      <div class="twin-layout">
        <div class="viewer-column">
          <ViewerToolbar
            remote={remote}
            tool={tool}
            readyKey={readyKey}
            layerBox={twin.data?.layers.find((layer) => layer.boundingBox)?.boundingBox ?? undefined}
          />
          <ViewerFrame
            ctx={ctx}
            remote={remote}
            onSelect={(next) => setSelection(next)}
            onPicked={setPicked}
            onReady={() => {
              // A view loaded again starts with select.
              setTool('select');
              setReadyKey((key) => key + 1);
            }}
            onToolChanged={setTool}
            onMeasurementCreated={(measurement) => void measured(measurement)}
            onMeasurementSelected={(id) => id && setSelection({ kind: 'measurement', id })}
          />
          <ToolHint tool={tool} />
          <ErrorNotice error={measureError} />
          {picked && <p class="picked">Picked point: {formatPosition(picked)}</p>}
        </div>
        <div class="twin-panels">
          <LayersPanel
            context={context}
            layers={twin.data?.layers}
            onChanged={(message) => {
              props.onNotice(message);
              twin.reload();
              refreshView();
            }}
          />
          <PoiPanel
            context={context}
            pois={pois}
            zones={zones.data ?? []}
            types={props.types}
            selection={selection}
            onSelect={select}
            picked={picked}
            start={twinCentre(twin.data)}
            onChanged={changed}
          />
          <ZonePanel
            context={context}
            zones={zones}
            types={props.types}
            selection={selection}
            onSelect={select}
            start={twinCentre(twin.data)}
            onChanged={changed}
          />
          <MeasurementPanel
            context={context}
            measurements={measurements}
            types={props.types}
            selection={selection}
            onSelect={selectMeasurement}
            onChanged={measurementsChanged}
          />
          {selection && selected && (
            <MetadataPanel
              key={selection.id}
              context={context}
              selection={selection}
              name={selected.name}
              version={selected.updatedAt}
              types={props.types}
              onChanged={(message) => {
                props.onNotice(message);
                // A metadata type given here changes the object: the lists answer its new updatedAt and type.
                pois.reload();
                zones.reload();
                measurements.reload();
                setChangesKey((key) => key + 1);
                if (context.draft) props.onDraftsChanged();
              }}
            />
          )}
        </div>
      </div>
    </>
  );
}

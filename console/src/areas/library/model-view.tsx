import { ok } from '@reality-data-platform/sdk/browser';
import { useEffect, useState } from 'preact/hooks';
import { navigate } from '../../router.js';
import { ErrorNotice, formatBytes, Link, PageTitle } from '../../ui/components.js';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { flash, takeFlash } from '../../ui/flash.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { EditModelDialog, ModelTagsDialog } from './edit-model-dialogs.js';
import { describeLibraryRefusal } from './library-refusals.js';
import { useLibraryWriter } from './library-rights.js';
import { formatName, isSettled, type LibraryModel, previewWords, STATUS_WORDS } from './library-types.js';
import { PlaceModelDialog, type Placement, placementWords } from './place-model-dialog.js';
import { TagChips } from './tag-chips.js';
import { Thumbnail } from './thumbnail.js';

type OpenDialog = 'edit' | 'tags' | 'place' | 'delete';

/** How often a model that is uploading or being previewed is read again. */
const WATCH_MS = 1000;

/**
 * A model's screen: its thumbnail, state in words (watched until it settles), file, tags and
 * download link; for those who may change the library, editing, tags, placing in a twin and deletion.
 */
export function ModelView(props: { modelId: string }) {
  const session = useSession();
  const writer = useLibraryWriter();
  const { modelId } = props;
  const withLinks = session.hasScope('download:assetlibrary');
  const loaded = useResource(
    () =>
      ok(
        session.api.GET('/v1/asset-library/models/{modelId}', {
          params: { path: { modelId }, query: { includeTags: true, includeDownloadLinks: withLinks } },
        }),
      ),
    [modelId],
  );
  const [dialog, setDialog] = useState<OpenDialog>();
  const [notice, setNotice] = useState(takeFlash);
  const [placements, setPlacements] = useState<Placement[]>([]);
  const model = loaded.data;

  // The upload and the worker change the model on their own: read it again until it settles.
  useEffect(() => {
    if (!model || isSettled(model) || loaded.loading) return;
    const timer = setTimeout(loaded.reload, WATCH_MS);
    return () => clearTimeout(timer);
  }, [model, loaded.loading]);

  if (!model) return <LoadingOrError error={loaded.error} />;

  function changed(message: string) {
    setDialog(undefined);
    setNotice(message);
    loaded.reload();
  }

  // Placing is a change of a twin (write:hierarchy, edit on the site, checked by the platform on
  // the site chosen); it is offered with the library's other changes, to those who edit the
  // organization, since which sites a person edits is not known before they choose one.
  const canPlace = model.status === 'ready' && session.hasScope('write:hierarchy');
  const actions = writer
    ? [
        <button key="edit" type="button" class="quiet" onClick={() => setDialog('edit')}>
          Edit name and description
        </button>,
        <button key="tags" type="button" class="quiet" onClick={() => setDialog('tags')}>
          Edit tags
        </button>,
        canPlace && (
          <button key="place" type="button" onClick={() => setDialog('place')}>
            Place in a twin
          </button>
        ),
        <button key="delete" type="button" class="quiet danger-text" onClick={() => setDialog('delete')}>
          Delete
        </button>,
      ].filter(Boolean)
    : undefined;

  return (
    <section class="library model-screen">
      <nav aria-label="Breadcrumb" class="breadcrumbs">
        <ol>
          <li>
            <Link href="/library">Library</Link>
          </li>
          <li aria-current="page">{model.name}</li>
        </ol>
      </nav>
      <PageTitle actions={actions}>{model.name}</PageTitle>
      {notice && (
        <p class="notice success" role="status">
          {notice}
        </p>
      )}
      <ErrorNotice error={loaded.error} />
      <div class="model-detail">
        <Thumbnail model={model} size="large" />
        <dl class="facts">
          <dt>State</dt>
          <dd>
            <span role="status" class={`model-status ${model.status}`}>
              {STATUS_WORDS[model.status]}
            </span>
          </dd>
          <dt>Preview</dt>
          <dd>{previewWords(model)}</dd>
          <dt>File</dt>
          <dd>
            {model.file.name} · {formatName(model)} · {formatBytes(model.file.size)}
          </dd>
          <dt>Original</dt>
          <dd>
            <DownloadLink model={model} withLinks={withLinks} />
          </dd>
          <dt>Description</dt>
          <dd>{model.description || 'None'}</dd>
          <dt>Tags</dt>
          <dd>{model.tags && model.tags.length > 0 ? <TagChips tags={model.tags} /> : 'None'}</dd>
          <dt>Added</dt>
          <dd>{new Date(model.createdAt).toLocaleString()}</dd>
        </dl>
      </div>
      {placements.length > 0 && (
        <section aria-labelledby="placed-heading">
          <h2 id="placed-heading">Placed in twins</h2>
          <ul class="placements">
            {placements.map((placement) => (
              <li key={placement.asset.id}>
                {placementWords(placement)} <Link href={`/nodes/${placement.site.id}`}>Open {placement.site.name}</Link>
              </li>
            ))}
          </ul>
        </section>
      )}
      {dialog === 'edit' && (
        <EditModelDialog model={model} onSaved={() => changed('Saved.')} onClose={() => setDialog(undefined)} />
      )}
      {dialog === 'tags' && (
        <ModelTagsDialog model={model} onSaved={() => changed('Tags saved.')} onClose={() => setDialog(undefined)} />
      )}
      {dialog === 'place' && (
        <PlaceModelDialog
          model={model}
          onPlaced={(placement) => {
            setPlacements((previous) => [...previous, placement]);
            changed(`Placed: ${placementWords(placement)}`);
          }}
          onClose={() => setDialog(undefined)}
        />
      )}
      {dialog === 'delete' && (
        <ConfirmDialog
          title={`Delete ${model.name}?`}
          confirm={`Delete ${model.name}`}
          danger
          onClose={() => setDialog(undefined)}
          action={async () => {
            try {
              await ok(session.api.DELETE('/v1/asset-library/models/{modelId}', { params: { path: { modelId } } }));
            } catch (refusal) {
              throw new Error(describeLibraryRefusal(refusal));
            }
            flash(`${model.name} is deleted.`);
            navigate('/library');
          }}
        >
          <p>The model, its file, preview and thumbnail are deleted for good. A model placed in a twin cannot be deleted.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** The original's signed link (an hour), for people with download:assetlibrary; none while the upload is open. */
function DownloadLink(props: { model: LibraryModel; withLinks: boolean }) {
  const { model } = props;
  if (!props.withLinks) return <>Downloading needs the download:assetlibrary permission.</>;
  const original = model.downloadLinks?.original;
  if (!original) return <>Not uploaded yet.</>;
  return (
    <a href={original.url} download={model.file.name}>
      Download {model.file.name}
    </a>
  );
}

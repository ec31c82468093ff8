import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { navigate, useLocation } from '../../router.js';
import { ErrorNotice, Link, PageTitle } from '../../ui/components.js';
import { takeFlash } from '../../ui/flash.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { ShowMore } from '../../ui/show-more.js';
import { usePagedList } from '../../ui/use-paged-list.js';
import { useResource } from '../../ui/use-resource.js';
import { AddModelDialog } from './add-model-dialog.js';
import { useLibraryWriter } from './library-rights.js';
import { type LibraryModel, type LibraryTag, modelHref, STATUS_WORDS } from './library-types.js';
import { TagChips } from './tag-chips.js';
import { Thumbnail } from './thumbnail.js';

const PAGE = 48;

/** The organization's library: its models with thumbnails, filtered by tags (in the address: `?tag=a&tag=b`). */
export function ModelsView() {
  const session = useSession();
  const writer = useLibraryWriter();
  const { query } = useLocation();
  const chosen = query.getAll('tag');
  const [adding, setAdding] = useState(false);
  const [notice] = useState(takeFlash);
  const tags = useResource(
    () => ok(session.api.GET('/v1/asset-library/tags', { params: { query: { limit: 500 } } })) as Promise<LibraryTag[]>,
    [],
  );
  const models = usePagedList<LibraryModel>(
    (page) =>
      session.api.GET('/v1/asset-library/models', {
        params: { query: { ...page, includeTags: true, ...(chosen.length > 0 ? { tagId: chosen } : {}) } },
      }),
    [chosen],
    PAGE,
  );

  function toggle(tagId: string, on: boolean) {
    const next = on ? [...chosen, tagId] : chosen.filter((id) => id !== tagId);
    const search = new URLSearchParams(next.map((id) => ['tag', id]));
    navigate(`/library${next.length > 0 ? `?${search}` : ''}`, { replace: true });
  }

  const chosenNames = (tags.data ?? []).filter((tag) => chosen.includes(tag.id)).map((tag) => tag.name);
  return (
    <section class="library">
      <PageTitle
        actions={
          writer && (
            <button type="button" onClick={() => setAdding(true)}>
              Add a model
            </button>
          )
        }
      >
        Library
      </PageTitle>
      {notice && (
        <p class="notice success" role="status">
          {notice}
        </p>
      )}
      <p>
        The organization's 3D models, to place in twins. <Link href="/library/tags">Tags</Link>
      </p>
      {tags.data && tags.data.length > 0 && (
        <fieldset class="tag-filter">
          <legend>Show the models with every tag chosen</legend>
          {tags.data.map((tag) => (
            <label key={tag.id} class="choice">
              <input
                type="checkbox"
                checked={chosen.includes(tag.id)}
                onChange={(event) => toggle(tag.id, (event.target as HTMLInputElement).checked)}
              />
              {tag.name} ({tag.modelCount})
            </label>
          ))}
        </fieldset>
      )}
      <ErrorNotice error={tags.error} />
      {!models.items ? (
        <LoadingOrError error={models.error} />
      ) : (
        <>
          <p role="status" class="count">
            {models.items.length === 0
              ? chosen.length > 0
                ? `No model carries ${chosenNames.length > 1 ? 'all of ' : ''}${chosenNames.join(', ')}.`
                : 'The library has no model yet.'
              : `${models.items.length}${models.hasMore ? ' or more' : ''} model${models.items.length === 1 ? '' : 's'}${
                  chosenNames.length > 0 ? ` tagged ${chosenNames.join(' and ')}` : ''
                }.`}
          </p>
          <ul class="model-grid">
            {models.items.map((model) => (
              <li key={model.id}>
                <Thumbnail model={model} />
                <Link href={modelHref(model)} class="model-name">
                  {model.name}
                </Link>
                <span class={`model-status ${model.status}`}>{STATUS_WORDS[model.status]}</span>
                <TagChips tags={model.tags ?? []} />
              </li>
            ))}
          </ul>
          <ErrorNotice error={models.error} />
          <ShowMore list={models} what="models" />
        </>
      )}
      {adding && (
        <AddModelDialog tags={tags.data ?? []} onAdded={(model) => navigate(modelHref(model))} onClose={() => setAdding(false)} />
      )}
    </section>
  );
}

import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { Link, PageTitle } from '../../ui/components.js';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { useLibraryWriter } from './library-rights.js';
import type { LibraryTag } from './library-types.js';
import { TagDialog } from './tag-dialog.js';

type OpenDialog = { kind: 'create' } | { kind: 'edit'; tag: LibraryTag } | { kind: 'delete'; tag: LibraryTag };

/** The library's tags with how many models carry each; creating, renaming and deleting for those who may. */
export function TagsView() {
  const session = useSession();
  const writer = useLibraryWriter();
  const tags = useResource(
    () => ok(session.api.GET('/v1/asset-library/tags', { params: { query: { limit: 500 } } })) as Promise<LibraryTag[]>,
    [],
  );
  const [dialog, setDialog] = useState<OpenDialog>();
  const [notice, setNotice] = useState<string>();

  function changed(message: string) {
    setDialog(undefined);
    setNotice(message);
    tags.reload();
  }

  return (
    <section class="library">
      <nav aria-label="Breadcrumb" class="breadcrumbs">
        <ol>
          <li>
            <Link href="/library">Library</Link>
          </li>
          <li aria-current="page">Tags</li>
        </ol>
      </nav>
      <PageTitle
        actions={
          writer && (
            <button type="button" onClick={() => setDialog({ kind: 'create' })}>
              New tag
            </button>
          )
        }
      >
        Tags
      </PageTitle>
      {notice && (
        <p class="notice success" role="status">
          {notice}
        </p>
      )}
      {!tags.data ? (
        <LoadingOrError error={tags.error} />
      ) : tags.data.length === 0 ? (
        <p>The library has no tags yet.</p>
      ) : (
        <table class="tags">
          <caption class="visually-hidden">Tags of the library</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Models</th>
              {writer && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {tags.data.map((tag) => (
              <tr key={tag.id}>
                <td>
                  {tag.color && <span class="swatch" style={{ background: tag.color }} aria-hidden="true" />}
                  {tag.name}
                </td>
                <td>
                  <Link
                    href={`/library?tag=${encodeURIComponent(tag.id)}`}
                    aria-label={`${tag.modelCount} model${tag.modelCount === 1 ? '' : 's'} tagged ${tag.name}`}
                  >
                    {String(tag.modelCount)}
                  </Link>
                </td>
                {writer && (
                  <td class="row-actions">
                    <button type="button" class="quiet" onClick={() => setDialog({ kind: 'edit', tag })}>
                      Edit {tag.name}
                    </button>
                    <button type="button" class="quiet danger-text" onClick={() => setDialog({ kind: 'delete', tag })}>
                      Delete {tag.name}
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {dialog?.kind === 'create' && (
        <TagDialog onSaved={(tag) => changed(`Tag ${tag.name} created.`)} onClose={() => setDialog(undefined)} />
      )}
      {dialog?.kind === 'edit' && (
        <TagDialog
          tag={dialog.tag}
          onSaved={(tag) => changed(`Tag saved as ${tag.name}.`)}
          onClose={() => setDialog(undefined)}
        />
      )}
      {dialog?.kind === 'delete' && (
        <ConfirmDialog
          title={`Delete the tag ${dialog.tag.name}?`}
          confirm={`Delete ${dialog.tag.name}`}
          danger
          onClose={() => setDialog(undefined)}
          action={async () => {
            const { tag } = dialog;
            await ok(session.api.DELETE('/v1/asset-library/tags/{tagId}', { params: { path: { tagId: tag.id } } }));
            changed(`Tag ${tag.name} deleted.`);
          }}
        >
          <p>
            {dialog.tag.modelCount === 0
              ? 'No model carries it.'
              : `It is taken off the ${dialog.tag.modelCount === 1 ? 'model' : `${dialog.tag.modelCount} models`} that carry it; the models stay.`}
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}

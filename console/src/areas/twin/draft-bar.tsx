import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import type { ConsoleSession } from '../../auth/session.js';
import { navigate } from '../../router.js';
import { ErrorNotice, Link, TextField } from '../../ui/components.js';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { kindOf } from './object-kinds.js';
import { type TwinContext, type TwinDraft, twinHref } from './twin-api.js';

/**
 * Where the panels read and write: the live twin, or a draft (its changes seen by nobody else
 * until published). Editors make a draft here, see what it changes, publish or discard it.
 */
export function DraftBar(props: {
  context: TwinContext;
  drafts: TwinDraft[];
  mayEdit: boolean;
  /** Names of the objects the draft's view shows, for its list of changes. */
  names: Map<string, string>;
  changesKey: number;
  onPublished: (message: string) => void;
}) {
  const session = useSession();
  const { context } = props;
  const [dialog, setDialog] = useState<'new' | 'publish' | 'discard'>();
  const open = props.drafts.filter((draft) => draft.status === 'open');
  const draft = context.draft;

  return (
    <section class={draft ? 'draft-bar in-draft' : 'draft-bar'} aria-labelledby="draft-heading">
      <h2 id="draft-heading">{draft ? `Draft: ${draft.name}` : 'Live twin'}</h2>
      {draft ? (
        <p>
          {draft.status === 'open'
            ? 'You are working in a draft: its changes are seen by nobody else until it is published.'
            : `This draft was ${draft.status}; it takes no more changes.`}{' '}
          <Link href={twinHref(context.siteId)}>Back to the live twin</Link>
        </p>
      ) : (
        <p>You are seeing the live twin: changes here are seen at once by everyone who opens it.</p>
      )}
      <div class="draft-actions">
        {!draft && props.mayEdit && (
          <button type="button" onClick={() => setDialog('new')}>
            New draft
          </button>
        )}
        {draft?.status === 'open' && props.mayEdit && (
          <>
            <button type="button" onClick={() => setDialog('publish')}>
              Publish draft
            </button>
            <button type="button" class="quiet danger-text" onClick={() => setDialog('discard')}>
              Discard draft
            </button>
          </>
        )}
      </div>
      {!draft && open.length > 0 && (
        <nav aria-label="Open drafts" class="draft-list">
          <span>Open drafts:</span>
          <ul>
            {open.map((item) => (
              <li key={item.id}>
                <Link href={twinHref(context.siteId, item.id)}>{item.name}</Link>
              </li>
            ))}
          </ul>
        </nav>
      )}
      {draft && <DraftChanges key={props.changesKey} draft={draft} names={props.names} />}
      {dialog === 'new' && <NewDraftDialog siteId={context.siteId} onClose={() => setDialog(undefined)} />}
      {dialog === 'publish' && draft && (
        <ConfirmDialog
          title={`Publish ${draft.name}?`}
          confirm="Publish"
          onClose={() => setDialog(undefined)}
          action={async () => {
            const published = await ok(
              session.api.POST('/v1/twin/{contextId}/publish', { params: { path: { contextId: draft.id } }, body: {} }),
            );
            const skipped = published.skipped?.length ?? 0;
            props.onPublished(
              `${draft.name} is published: the live twin shows its changes.${
                skipped > 0 ? ` ${skipped} changes were skipped: their objects had been deleted meanwhile.` : ''
              }`,
            );
          }}
        >
          <p>Its changes are applied to the live twin together, and everyone sees them.</p>
        </ConfirmDialog>
      )}
      {dialog === 'discard' && draft && (
        <ConfirmDialog
          title={`Discard ${draft.name}?`}
          confirm="Discard"
          danger
          onClose={() => setDialog(undefined)}
          action={async () => {
            await ok(session.api.POST('/v1/twin/{contextId}/discard', { params: { path: { contextId: draft.id } }, body: {} }));
            props.onPublished(`${draft.name} is discarded: the live twin is unchanged.`);
          }}
        >
          <p>None of its changes reach the live twin. The draft stays readable but takes no more changes.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** A new draft of the site's twin (POST /v1/twin/{siteId}/drafts), then the console works in it. */
function NewDraftDialog(props: { siteId: string; onClose: () => void }) {
  const session = useSession();
  const [name, setName] = useState('');
  async function create() {
    const draft = await ok(
      session.api.POST('/v1/twin/{contextId}/drafts', { params: { path: { contextId: props.siteId } }, body: { name } }),
    );
    props.onClose();
    navigate(twinHref(props.siteId, draft.id));
  }
  return (
    <FormDialog title="New draft" submit="Create draft" onSubmit={create} onClose={props.onClose}>
      <p>A draft collects changes that nobody else sees until you publish it.</p>
      <TextField label="Draft name" value={name} onValue={setName} required maxLength={255} autoFocus />
    </FormDialog>
  );
}

const KIND_VERBS = { added: 'Adds', modified: 'Changes', removed: 'Removes' } as const;

/** What the draft changes (GET /v1/twin/{draftId}/changes), each in words with the object's name. */
function DraftChanges(props: { draft: TwinDraft; names: Map<string, string> }) {
  const session = useSession();
  const changes = useResource(async () => {
    const { items } = await ok(
      session.api.GET('/v1/twin/{contextId}/changes', { params: { path: { contextId: props.draft.id } } }),
    );
    // A removed object is not in the draft's view: its name is the live twin's.
    const removed = items.filter((change) => change.kind === 'removed');
    const liveNames = new Map<string, string | undefined>(
      await Promise.all(
        removed.map(
          async (change) =>
            [change.objectId, await liveName(session, props.draft.siteId, change.objectType, change.objectId)] as const,
        ),
      ),
    );
    return { items, liveNames };
  }, [props.draft.id]);
  if (changes.error) return <ErrorNotice error={changes.error} />;
  if (!changes.data) return null;
  return (
    <div class="draft-changes">
      <h3>Changes in this draft</h3>
      {changes.data.items.length === 0 ? (
        <p>No change yet.</p>
      ) : (
        <ul aria-label="Changes in this draft">
          {changes.data.items.map((change) => (
            <li key={change.id}>
              {KIND_VERBS[change.kind]} the {kindOf(change.objectType)?.word ?? change.objectType}{' '}
              {props.names.get(change.objectId) ?? changes.data?.liveNames.get(change.objectId) ?? change.objectId}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

async function liveName(session: ConsoleSession, siteId: string, objectType: string, id: string): Promise<string | undefined> {
  return (await kindOf(objectType)?.read(session, siteId, id))?.name;
}

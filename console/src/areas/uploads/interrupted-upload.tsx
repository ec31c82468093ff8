import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import type { ConsoleSession } from '../../auth/session.js';
import { ErrorNotice, Link } from '../../ui/components.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { BundleUpload } from './bundle-upload.js';
import { FileDrop } from './file-drop.js';
import { forgetUpload, type JournalEntry, journaledUploads, mismatch } from './upload-journal.js';
import { hasUpload, startUpload } from './upload-store.js';

interface Interrupted {
  entry: JournalEntry;
  /** The session ran out: its parts are gone, nothing can be resumed. */
  expired: boolean;
}

/**
 * The journaled uploads `which` picks that no upload of this tab carries on, as the platform
 * sees them: one it finalized, or whose bundle is gone, is forgotten here (the platform is
 * trusted over the journal); one whose session expired is kept to be told.
 */
export function useInterruptedUploads(nodeId: string, which: (entry: JournalEntry) => boolean) {
  const session = useSession();
  const journal = useResource(async () => {
    const entries = (await journaledUploads()).filter(which);
    const checked = await Promise.all(entries.map((entry) => check(session, entry)));
    return checked.filter((each): each is Interrupted => each !== undefined);
  }, [nodeId]);
  return { items: (journal.data ?? []).filter((each) => !hasUpload(each.entry.bundleId)), reload: journal.reload };
}

async function check(session: ConsoleSession, entry: JournalEntry): Promise<Interrupted | undefined> {
  if (!entry.sessionId) return { entry, expired: false };
  const found = await session.api.GET('/v1/bundles/{bundleId}/upload-sessions/{sessionId}', {
    params: { path: { bundleId: entry.bundleId, sessionId: entry.sessionId } },
  });
  const gone = found.response.status === 404 || found.response.status === 403;
  if (gone || found.data?.state === 'finalized') {
    await forgetUpload(entry.bundleId);
    return undefined;
  }
  const state = await ok(found);
  return { entry, expired: state.state === 'expired' || Date.parse(state.expiresAt) <= Date.now() };
}

/**
 * An upload a reload (or a closed tab) interrupted: the same files picked again resume it, and
 * only the parts the journal does not hold travel; a different file is refused in words.
 */
export function InterruptedUpload(props: { item: Interrupted; linked?: boolean; onForgotten: () => void }) {
  const session = useSession();
  const { entry, expired } = props.item;
  const [refusal, setRefusal] = useState<Error>();
  const names = entry.files.map((file) => file.name).join(', ');
  const parts = entry.files.flatMap((file) => file.parts);
  const done = entry.files.reduce((sum, file) => sum + file.done.length, 0);

  function pick(files: File[]) {
    const why = mismatch(entry, files);
    setRefusal(why ? new Error(why) : undefined);
    if (!why) startUpload(BundleUpload.resumed(session, entry, files));
  }

  async function forget() {
    await forgetUpload(entry.bundleId);
    props.onForgotten();
  }

  return (
    <section class="upload interrupted" aria-label={`Interrupted upload of ${entry.bundleName}`}>
      <h3>{props.linked ? <Link href={`/nodes/${entry.bundleId}`}>{entry.bundleName}</Link> : entry.bundleName}</h3>
      {expired ? (
        <p role="status">
          Interrupted and now expired: the parts of {names} sent so far are gone. Forget it, then upload the files again.
        </p>
      ) : (
        <>
          <p role="status">
            {parts.length > 0
              ? `Interrupted: ${done} of ${parts.length} parts of ${names} were sent.`
              : `Interrupted before any part of ${names} was sent.`}{' '}
            Pick the same {entry.files.length === 1 ? 'file' : 'files'} to resume; only the missing parts are sent.
          </p>
          <FileDrop label={`The same ${entry.files.length === 1 ? 'file' : 'files'} for ${entry.bundleName}`} onFiles={pick} />
          <ErrorNotice error={refusal} />
        </>
      )}
      <div class="buttons">
        <button type="button" class="quiet" onClick={() => void forget()}>
          Forget this upload
        </button>
      </div>
    </section>
  );
}

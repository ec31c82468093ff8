import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { formatBytes, TextField } from '../../ui/components.js';
import { RefusalNotice } from '../../ui/refusals.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { loadAncestors } from '../nodes/node-cache.js';
import type { NodePanelProps } from '../nodes/node-panels.js';
import { canWriteTree } from '../nodes/node-rights.js';
import { BundleUpload } from './bundle-upload.js';
import { FileDrop } from './file-drop.js';
import { InterruptedUpload, useInterruptedUploads } from './interrupted-upload.js';
import { StorageUse, useStorageUse } from './storage-use.js';
import { UploadProgress } from './upload-progress.js';
import { startUpload, useUploads } from './upload-store.js';
import './uploads.css';

/**
 * A site's or folder's uploads: files given (dropped or chosen) become a new data bundle's input.
 * Shown where data may go (a site, a folder inside one) to people who may create there (edit)
 * and upload; the organization's storage is shown above, and again as each upload ends.
 */
export function UploadPanel(props: NodePanelProps) {
  const session = useSession();
  const { node } = props;
  const place = useResource(
    async () => node.type === 'site' || (await loadAncestors(session, node)).some((ancestor) => ancestor.type === 'site'),
    [node.id],
  );
  const permissions = node.permissions ?? [];
  const mayUpload = canWriteTree(session) && permissions.includes('edit') && permissions.includes('upload');
  if (!mayUpload || place.data !== true) return null;
  return <NewBundleUpload parent={node} />;
}

function NewBundleUpload(props: { parent: { id: string; name: string } }) {
  const session = useSession();
  const { parent } = props;
  const [files, setFiles] = useState<File[]>([]);
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const uploads = useUploads((upload) => upload.bundle.parentId === parent.id);
  const interrupted = useInterruptedUploads(parent.id, (entry) => entry.parentId === parent.id);
  const ended = uploads.filter((upload) => upload.status === 'done').length;
  const storage = useStorageUse([ended]);

  function choose(chosen: File[]) {
    setFiles(chosen);
    setError(undefined);
    if (!name) setName((chosen[0]?.name ?? '').replace(/\.[^.]*$/, ''));
  }

  async function upload(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const bundle = await ok(
        session.api.POST('/v1/nodes/{parentId}/bundle', { params: { path: { parentId: parent.id } }, body: { name } }),
      );
      startUpload(BundleUpload.of(session, { id: bundle.id, name: bundle.name, parentId: parent.id }, files));
      setFiles([]);
      setName('');
    } catch (refusal) {
      setError(refusal);
    }
    setBusy(false);
  }

  return (
    <section class="uploads-panel" aria-labelledby="uploads-heading">
      <h2 id="uploads-heading">Upload data</h2>
      <StorageUse storage={storage} />
      <form onSubmit={upload}>
        <FileDrop label="Files for a new data bundle" onFiles={choose} disabled={busy} />
        {files.length > 0 && (
          <>
            <ul class="chosen-files" aria-label="Chosen files">
              {files.map((file, index) => (
                <li key={index}>
                  {file.name} ({formatBytes(file.size)})
                </li>
              ))}
            </ul>
            <TextField label="Data bundle name" value={name} onValue={setName} required maxLength={255} />
            <RefusalNotice error={error} />
            <div class="buttons">
              <button type="button" class="quiet" onClick={() => setFiles([])}>
                Clear
              </button>
              <button type="submit" disabled={busy}>
                Upload {files.length === 1 ? 'the file' : `${files.length} files`} as a new data bundle
              </button>
            </div>
          </>
        )}
      </form>
      {interrupted.items.map((item) => (
        <InterruptedUpload key={item.entry.bundleId} item={item} linked onForgotten={interrupted.reload} />
      ))}
      {uploads.map((each) => (
        <UploadProgress key={each.bundle.id} upload={each} linked />
      ))}
    </section>
  );
}

import { ok } from '@reality-data-platform/sdk/browser';
import { useEffect } from 'preact/hooks';
import { ErrorNotice, formatBytes } from '../../ui/components.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import type { NodePanelProps } from '../nodes/node-panels.js';
import { canWriteTree } from '../nodes/node-rights.js';
import { BundleUpload } from './bundle-upload.js';
import { FileDrop } from './file-drop.js';
import { InterruptedUpload, useInterruptedUploads } from './interrupted-upload.js';
import { ProcessingView, StartProcessing } from './processing-view.js';
import { BUNDLE_STATE_WORDS, type Bundle, isUnderway, latestProcessing } from './processing-words.js';
import { UploadProgress } from './upload-progress.js';
import { startUpload, useUploads } from './upload-store.js';
import './uploads.css';
import { LoadingOrError } from '../../ui/loading-or-error.js';

/** How often a bundle being uploaded or processed is read again. */
const POLL_MS = 1000;

/**
 * A data bundle's screen: its input's files, its upload when one runs in this tab, the cost and
 * the start of its processing (confirmed first), and the processing watched as it goes by reading
 * the bundle's processings every second (no reload), with the outputs linked when done.
 */
export function BundlePanel(props: NodePanelProps) {
  const session = useSession();
  const { node } = props;
  const bundle = useResource(
    () =>
      ok(
        session.api.GET('/v1/bundles/{bundleId}', {
          params: { path: { bundleId: node.id }, query: { expand: 'processings,components' } },
        }),
      ),
    [node.id],
  );
  const [upload] = useUploads((each) => each.bundle.id === node.id);
  const journaled = useInterruptedUploads(node.id, (entry) => entry.bundleId === node.id);
  const [interrupted] = journaled.items;
  const data = bundle.data;
  const latest = data ? latestProcessing(data) : undefined;
  const watching = data?.state === 'processing' || isUnderway(latest) || upload?.status === 'finalizing';
  const uploadDone = upload?.status === 'done';

  useEffect(() => {
    if (!watching) return;
    const timer = setInterval(bundle.reload, POLL_MS);
    return () => clearInterval(timer);
  }, [watching]);
  // The upload's end changes the bundle (uploaded, its files): read it once more then.
  useEffect(() => {
    if (uploadDone) bundle.reload();
  }, [uploadDone]);

  if (!data) return <LoadingOrError error={bundle.error} />;
  const permissions = node.permissions ?? [];
  const mayUpload = canWriteTree(session) && permissions.includes('upload');
  const mayProcess = canWriteTree(session) && permissions.includes('process');
  const input = data.components?.find((component) => component.role === 'input');

  return (
    <>
      <section class="bundle-panel" aria-labelledby="bundle-input-heading">
        <h2 id="bundle-input-heading">Input</h2>
        <p class="bundle-state">{BUNDLE_STATE_WORDS[data.state] ?? data.state}</p>
        {input?.files?.length ? (
          <table>
            <caption class="visually-hidden">Files of {data.name}</caption>
            <thead>
              <tr>
                <th scope="col">File</th>
                <th scope="col">Size</th>
                <th scope="col">Format</th>
                <th scope="col">Upload</th>
              </tr>
            </thead>
            <tbody>
              {input.files.map((file) => (
                <tr key={file.id}>
                  <td>{file.name}</td>
                  <td>{formatBytes(file.size)}</td>
                  <td>{file.format ?? 'Not known'}</td>
                  <td>{file.state === 'uploaded' ? 'Uploaded' : file.state === 'expired' ? 'Expired' : 'Uploading'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          !upload && <p>No files uploaded yet.</p>
        )}
        {upload && upload.status !== 'done' && <UploadProgress upload={upload} />}
        {!upload && interrupted && mayUpload && <InterruptedUpload item={interrupted} onForgotten={journaled.reload} />}
        {!upload && !interrupted && data.state === 'created' && mayUpload && <UploadInto bundle={data} />}
        <ErrorNotice error={bundle.error} />
      </section>
      <section class="bundle-panel" aria-labelledby="bundle-processing-heading">
        <h2 id="bundle-processing-heading">Processing</h2>
        {latest ? <ProcessingView processing={latest} outputs={data.components} bundle={node} /> : <p>Not processed yet.</p>}
        {mayProcess && input && !isUnderway(latest) && data.state !== 'processing' && (
          <StartProcessing bundle={data} again={latest !== undefined} onStarted={bundle.reload} />
        )}
      </section>
    </>
  );
}

/** An empty bundle's files, given here: the upload starts at once. */
function UploadInto(props: { bundle: Bundle }) {
  const session = useSession();
  const { bundle } = props;
  return (
    <FileDrop
      label={`Files for ${bundle.name}`}
      onFiles={(files) =>
        startUpload(BundleUpload.of(session, { id: bundle.id, name: bundle.name, parentId: bundle.parentId ?? '' }, files))
      }
    />
  );
}

import { ok } from '@reality-data-platform/sdk/browser';
import { useId, useState } from 'preact/hooks';
import { sendFile } from '../../transfer/part-upload.js';
import { ErrorNotice, formatBytes } from '../../ui/components.js';
import { useSubmission } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import type { Resource } from '../../ui/use-resource.js';
import type { Attachment } from './metadata-values.js';
import type { Selection, TwinContext } from './twin-api.js';

/**
 * The selected object's attachments (docs/twins.md, "Object metadata"): each with its size and a
 * download; an editor adds one from a file, which is uploaded to the signed address the platform
 * gives and finalized with its ETag. An attachment property's value then names it.
 */
export function ObjectAttachments(props: {
  context: TwinContext;
  selection: Selection;
  name: string;
  attachments: Resource<Attachment[]>;
  onAdded: (message: string) => void;
}) {
  const session = useSession();
  const inputId = useId();
  const { context, selection, attachments } = props;
  const upload = useSubmission();
  const download = useSubmission();
  const [sent, setSent] = useState<number>();

  async function add(file: File) {
    const path = { contextId: context.ctx };
    const target = await ok(
      session.api.POST('/v1/twin/{contextId}/object/attachments', {
        params: { path },
        body: { objectId: selection.id, name: file.name, size: file.size },
      }),
    );
    const etag = await sendFile(file, target, setSent);
    await ok(
      session.api.POST('/v1/twin/{contextId}/object/attachments/{attachmentId}/finalize', {
        params: { path: { ...path, attachmentId: target.id } },
        body: { etag },
      }),
    );
    setSent(undefined);
    attachments.reload();
    props.onAdded(`${file.name} attached to ${props.name}.`);
  }

  /** The download needs the person's token, so it is fetched and handed to the browser as a file. */
  async function save(attachment: Attachment) {
    const response = await session.fetch(
      `${session.apiUrl}/v1/twin/${encodeURIComponent(context.ctx)}/object/attachments/${encodeURIComponent(attachment.id)}/download`,
    );
    if (!response.ok) throw new Error(`${attachment.name} could not be downloaded (status ${response.status}).`);
    const url = URL.createObjectURL(await response.blob());
    const anchor = document.createElement('a');
    anchor.href = url;
    anchor.download = attachment.name;
    anchor.click();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }

  const list = attachments.data;
  return (
    <section class="twin-panel" aria-labelledby={`${inputId}-heading`}>
      <h2 id={`${inputId}-heading`}>Attachments of {props.name}</h2>
      {!list ? (
        <ErrorNotice error={attachments.error} />
      ) : list.length === 0 ? (
        <p>No attachment yet.</p>
      ) : (
        <ul class="object-list" aria-label={`Attachments of ${props.name}`}>
          {list.map((attachment) => (
            <li key={attachment.id}>
              <span>{attachment.name}</span>
              <span class="object-facts">
                {formatBytes(attachment.size)}
                {attachment.state === 'uploading' ? ' · upload not finished' : ''}
              </span>
              {attachment.state === 'ready' && (
                <button type="button" class="quiet" onClick={() => void download.run(() => save(attachment))}>
                  Download {attachment.name}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <ErrorNotice error={download.error} />
      {context.canWrite && (
        <div class="field">
          <label for={inputId}>Attach a file</label>
          <input
            id={inputId}
            type="file"
            disabled={upload.busy && sent !== undefined}
            onChange={(event) => {
              const input = event.target as HTMLInputElement;
              const file = input.files?.[0];
              input.value = '';
              if (file) void upload.run(() => add(file));
            }}
          />
          {sent !== undefined && <p role="status">Uploading: {formatBytes(sent)} sent</p>}
          <ErrorNotice error={upload.error} />
        </div>
      )}
    </section>
  );
}

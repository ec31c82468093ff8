import { ok } from '@reality-data-platform/sdk/browser';
import { useId, useState } from 'preact/hooks';
import { uploadFile } from '../../transfer/upload-file.js';
import { formatBytes, Progress, TextField } from '../../ui/components.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import { LibraryRefusal } from './library-refusals.js';
import type { LibraryModel, LibraryTag } from './library-types.js';
import { DescriptionField, TagChoice } from './model-fields.js';

type Step = { kind: 'form' } | { kind: 'uploading'; sent: number } | { kind: 'finalizing' };

/**
 * A new model: its name and file (and a description and tags). The creation reserves the size and
 * answers where to PUT the bytes; once they are there, finalize reads the format from them and
 * starts the preview. The model's screen then watches it become ready.
 */
export function AddModelDialog(props: { tags: LibraryTag[]; onAdded: (model: LibraryModel) => void; onClose: () => void }) {
  const session = useSession();
  const fileId = useId();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [file, setFile] = useState<File>();
  const [tagIds, setTagIds] = useState<string[]>([]);
  const [step, setStep] = useState<Step>({ kind: 'form' });

  async function add() {
    if (!file) return;
    setStep({ kind: 'uploading', sent: 0 });
    try {
      const created = await ok(
        session.api.POST('/v1/asset-library/models', {
          body: { name, description, fileName: file.name, size: file.size, tagIds },
        }),
      );
      const etag = await uploadFile(file, created, (sent) => setStep({ kind: 'uploading', sent }));
      setStep({ kind: 'finalizing' });
      const finalized = await ok(
        session.api.POST('/v1/asset-library/models/{modelId}/finalize', {
          params: { path: { modelId: created.id } },
          body: { etag },
        }),
      );
      props.onAdded(finalized);
    } catch (refusal) {
      setStep({ kind: 'form' });
      throw refusal;
    }
  }

  return (
    <FormDialog
      title="Add a model to the library"
      submit="Add model"
      disabled={!file}
      notice={LibraryRefusal}
      onSubmit={add}
      onClose={props.onClose}
    >
      <TextField label="Name" value={name} onValue={setName} required maxLength={255} autoFocus />
      <div class="field">
        <label for={fileId}>File (glTF, GLB, OBJ, STL, PLY, FBX, IFC, STEP, E57, LAS or LAZ)</label>
        <input
          id={fileId}
          type="file"
          required
          onChange={(event) => {
            const chosen = (event.target as HTMLInputElement).files?.[0];
            setFile(chosen);
            if (chosen && !name) setName(chosen.name.replace(/\.[^.]+$/, ''));
          }}
        />
        {file && <span class="hint">{formatBytes(file.size)}</span>}
      </div>
      <DescriptionField value={description} onValue={setDescription} />
      <TagChoice tags={props.tags} chosen={tagIds} onChosen={setTagIds} />
      {step.kind === 'uploading' && file && (
        <Progress
          label="Uploading"
          value={step.sent}
          max={file.size}
          text={`${formatBytes(step.sent)} of ${formatBytes(file.size)}`}
        />
      )}
      {step.kind === 'finalizing' && <p role="status">Checking the file…</p>}
    </FormDialog>
  );
}

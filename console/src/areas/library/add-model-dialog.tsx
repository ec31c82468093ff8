import { useEffect, useId, useState } from 'preact/hooks';
import { formatBytes, Progress, TextField } from '../../ui/components.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { useSession } from '../../ui/session-context.js';
import { LibraryRefusal } from './library-refusals.js';
import type { LibraryModel, LibraryTag } from './library-types.js';
import { DescriptionField, TagChoice } from './model-fields.js';
import { ModelUpload } from './upload-file.js';

/**
 * A new model: its name and file (and a description and tags). The creation reserves the size and
 * answers where to PUT the bytes; the upload can be paused and resumed; once the bytes are there,
 * finalize reads the format from them and starts the preview. The model's screen then watches it
 * become ready. A refused upload submitted again resumes the same model's upload when its file
 * is the one chosen (a refused creation is made again with the fields as they are now).
 */
export function AddModelDialog(props: { tags: LibraryTag[]; onAdded: (model: LibraryModel) => void; onClose: () => void }) {
  const session = useSession();
  const fileId = useId();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [file, setFile] = useState<File>();
  const [tagIds, setTagIds] = useState<string[]>([]);
  const [upload, setUpload] = useState<ModelUpload>();
  const [, setTick] = useState(0);
  useEffect(() => upload?.subscribe(() => setTick((tick) => tick + 1)), [upload]);
  // A dialog closed mid-upload stops sending.
  useEffect(() => () => upload?.pause(), [upload]);

  async function add() {
    if (!file) return;
    const again = upload?.created && upload.file === file && upload.status === 'failed';
    const current = again ? upload : new ModelUpload(session, { name, description, tagIds }, file);
    setUpload(current);
    void current.run();
    await current.settled();
    props.onAdded(current.model as LibraryModel);
  }
  const status = upload?.status;

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
      {upload && (status === 'uploading' || status === 'paused') && (
        <div class="model-upload">
          <Progress
            label="Uploading"
            value={upload.sentBytes}
            max={upload.totalBytes}
            text={`${formatBytes(upload.sentBytes)} of ${formatBytes(upload.totalBytes)}`}
          />
          {status === 'paused' ? (
            <>
              <p role="status">Paused: the parts already sent are kept; resume to send the rest.</p>
              <button type="button" onClick={() => void upload.resume()}>
                Resume
              </button>
            </>
          ) : (
            <>
              <p role="status">
                Uploading: {upload.partsDone} of {upload.partCount || 'its'} {upload.partCount === 1 ? 'part' : 'parts'} sent.
              </p>
              <button type="button" class="quiet" onClick={() => upload.pause()}>
                Pause
              </button>
            </>
          )}
        </div>
      )}
      {status === 'finalizing' && <p role="status">Checking the file…</p>}
    </FormDialog>
  );
}

import { formatBytes, Link, Progress } from '../../ui/components.js';
import { describeError } from '../../ui/errors.js';
import type { BundleUpload, UploadStatus } from './bundle-upload.js';

const STATUS_WORDS: Record<UploadStatus, string> = {
  uploading: 'Uploading',
  paused: 'Paused: the parts already sent are kept; resume to send the rest.',
  finalizing: 'Checking the files…',
  done: 'Uploaded. The bundle is ready to process.',
  failed: 'The upload stopped.',
};

/** One bundle's upload: a progress bar per file, its state in words, and pause or resume. */
export function UploadProgress(props: { upload: BundleUpload; linked?: boolean }) {
  const { upload } = props;
  const { status } = upload;
  const sent = upload.sentBytes;
  return (
    <section class="upload" aria-label={`Upload of ${upload.bundle.name}`}>
      <h3>{props.linked ? <Link href={`/nodes/${upload.bundle.id}`}>{upload.bundle.name}</Link> : upload.bundle.name}</h3>
      {upload.files.map((entry, index) => (
        <Progress
          key={index}
          label={entry.file.name}
          value={entry.sentBytes}
          max={entry.file.size}
          text={`${formatBytes(entry.sentBytes)} of ${formatBytes(entry.file.size)}`}
        />
      ))}
      <p role="status" class="upload-status">
        {status === 'uploading'
          ? `Uploading: ${formatBytes(sent)} of ${formatBytes(upload.totalBytes)} sent${upload.partCount > 1 ? ` (${upload.partsDone} of ${upload.partCount} parts done)` : ''}.`
          : STATUS_WORDS[status]}
      </p>
      {status === 'failed' && (
        <p class="notice error" role="alert">
          {describeError(upload.error)}
        </p>
      )}
      <div class="buttons">
        {status === 'uploading' && (
          <button type="button" class="quiet" onClick={() => upload.pause()}>
            Pause
          </button>
        )}
        {(status === 'paused' || status === 'failed') && (
          <button type="button" onClick={() => void upload.resume()}>
            {status === 'paused' ? 'Resume' : 'Try again'}
          </button>
        )}
      </div>
    </section>
  );
}

import { type ApiClient, ok, type Schema } from './client.js';
import {
  ByteReader,
  doneBytes,
  type FileUploadState,
  type PartUploadOptions,
  ProgressCounter,
  sendParts,
  type UploadSource,
  uploadEtag,
} from './upload-parts.js';

/**
 * Where an upload stands, as plain JSON: store it (onState gives it after every part) and pass
 * it back as `resume` after an interruption or a crash; only the missing parts are sent. It
 * holds signed upload addresses: keep it where the tokens are kept.
 */
export type UploadState =
  | { version: 1; kind: 'siteFile'; parentId: string; file: FileUploadState }
  | { version: 1; kind: 'bundleInput'; bundleId: string; sessionId: string; files: FileUploadState[] };

export interface UploadOptions extends PartUploadOptions {
  /** Called with a copy of the state once the upload is opened and after every part: persist it to resume. */
  onState?: (state: UploadState) => void | Promise<void>;
  /** The state of an earlier, unfinished run of this same upload. */
  resume?: UploadState;
}

/** The client the upload helpers call: a connected RdpClient, or anything with its `api`. */
export interface HasApi {
  api: ApiClient;
}

export interface SiteFileUpload extends UploadOptions {
  /** The folder or site it goes into. */
  parentId: string;
  /** Its name (default: the file name of a path source). */
  name?: string;
  /** A file path (streamed) or bytes. On a resume, the path of the state is used when left out. */
  source?: UploadSource;
}

/**
 * A site file: initiate (POST /v1/site-files), PUT the bytes (parts in parallel), finalize with
 * the ETag. Answers the finalized site file.
 */
export async function uploadSiteFile(client: HasApi, upload: SiteFileUpload): Promise<Schema<'SiteFile'>> {
  const resumed = upload.resume;
  if (resumed && resumed.kind !== 'siteFile') throw new Error('The state to resume is not a site file upload');
  const reader = await ByteReader.open(sourceOf(upload.source, resumed?.file));
  try {
    let state: Extract<UploadState, { kind: 'siteFile' }>;
    if (resumed) {
      checkSameSource(resumed.file, reader);
      state = structuredClone(resumed);
    } else {
      const name = upload.name ?? baseName(reader.path);
      const opened = await ok(
        client.api.POST('/v1/site-files', { body: { parentId: upload.parentId, name, size: reader.size } }),
      );
      state = { version: 1, kind: 'siteFile', parentId: upload.parentId, file: fileState(opened, reader) };
    }
    const save = serialised(() => tell(upload.onState, state));
    await save();
    const progress = new ProgressCounter(reader.size, upload.onProgress);
    progress.add(doneBytes(state.file));
    await sendParts(state.file, reader, { ...upload, progress, onPartDone: save });
    return await ok(
      client.api.POST('/v1/site-files/{fileId}/finalize', {
        params: { path: { fileId: state.file.id } },
        body: { etag: uploadEtag(state.file) },
      }),
    );
  } finally {
    await reader.close();
  }
}

export interface BundleInputUpload extends UploadOptions {
  bundleId: string;
  /** The input's files (a point cloud, a video; a bundle is processed from its largest file). */
  files: { name?: string; source?: UploadSource }[];
}

/**
 * A bundle's input: an upload session, each file added and PUT (parts in parallel, files one
 * after the other), then the session finalized with the ETags. Answers the bundle, ready to process.
 */
export async function uploadBundleInput(client: HasApi, upload: BundleInputUpload): Promise<Schema<'Bundle'>> {
  const resumed = upload.resume;
  if (resumed && (resumed.kind !== 'bundleInput' || resumed.bundleId !== upload.bundleId)) {
    throw new Error('The state to resume is not an upload of this bundle');
  }
  if (resumed && resumed.files.length > upload.files.length) {
    throw new Error(`The state to resume holds ${resumed.files.length} files: pass the same files again`);
  }
  const readers: ByteReader[] = [];
  try {
    for (const [index, file] of upload.files.entries()) {
      readers.push(await ByteReader.open(sourceOf(file.source, resumed?.files[index])));
    }
    let state: Extract<UploadState, { kind: 'bundleInput' }>;
    if (resumed) state = structuredClone(resumed);
    else {
      const session = await ok(
        client.api.POST('/v1/bundles/{bundleId}/upload-sessions', { params: { path: { bundleId: upload.bundleId } } }),
      );
      state = { version: 1, kind: 'bundleInput', bundleId: upload.bundleId, sessionId: session.id, files: [] };
    }
    const save = serialised(() => tell(upload.onState, state));
    const path = { bundleId: state.bundleId, sessionId: state.sessionId };
    // Files added before an interruption are in the state; the others are added now.
    for (const [index, reader] of readers.entries()) {
      const known = state.files[index];
      if (known) {
        checkSameSource(known, reader);
        continue;
      }
      const name = upload.files[index]?.name ?? baseName(reader.path);
      const added = await ok(
        client.api.POST('/v1/bundles/{bundleId}/upload-sessions/{sessionId}/files', {
          params: { path },
          body: { name, size: reader.size },
        }),
      );
      state.files.push(fileState(added, reader));
      await save();
    }
    await save();
    const progress = new ProgressCounter(
      readers.reduce((sum, reader) => sum + reader.size, 0),
      upload.onProgress,
    );
    progress.add(state.files.reduce((sum, file) => sum + doneBytes(file), 0));
    for (const [index, file] of state.files.entries()) {
      await sendParts(file, readers[index] as ByteReader, { ...upload, progress, onPartDone: save });
    }
    return await ok(
      client.api.POST('/v1/bundles/{bundleId}/upload-sessions/{sessionId}/finalize', {
        params: { path },
        body: { files: state.files.map((file) => ({ id: file.id, etag: uploadEtag(file) })) },
      }),
    );
  } finally {
    await Promise.all(readers.map((reader) => reader.close()));
  }
}

interface OpenedUpload {
  id: string;
  name: string;
  size: number;
  uploadUrl?: string;
  partSize?: number;
  parts?: { partNumber: number; size: number; uploadUrl: string }[];
  expiresAt: string;
}

function fileState(opened: OpenedUpload, reader: ByteReader): FileUploadState {
  const file: FileUploadState = { id: opened.id, name: opened.name, size: opened.size, done: [], expiresAt: opened.expiresAt };
  if (reader.path !== undefined) {
    file.path = reader.path;
    file.modifiedAtMs = reader.modifiedAtMs;
  }
  if (opened.uploadUrl) file.uploadUrl = opened.uploadUrl;
  else {
    file.partSize = opened.partSize;
    file.parts = opened.parts;
  }
  return file;
}

function sourceOf(source: UploadSource | undefined, resumed: FileUploadState | undefined): UploadSource {
  const chosen = source ?? resumed?.path;
  if (chosen === undefined) throw new Error('No source: pass a file path or bytes');
  return chosen;
}

/** A resume must read the same bytes the parts already sent came from. */
function checkSameSource(file: FileUploadState, reader: ByteReader): void {
  if (reader.size !== file.size) throw new Error(`${file.name} is ${reader.size} bytes now, ${file.size} when the upload began`);
  if (file.modifiedAtMs !== undefined && reader.modifiedAtMs !== undefined && reader.modifiedAtMs !== file.modifiedAtMs) {
    throw new Error(`${file.path} changed since the upload began: start it again`);
  }
}

function baseName(path: string | undefined): string {
  if (path === undefined) throw new Error('Name the file: bytes have no name');
  return path.split(/[\\/]/).pop() as string;
}

/** Runs the saves one after another, so a slow store never writes an older state over a newer one. */
function serialised(save: () => Promise<void>): () => Promise<void> {
  let last: Promise<void> = Promise.resolve();
  return () => {
    last = last.then(save);
    return last;
  };
}

async function tell(onState: UploadOptions['onState'], state: UploadState): Promise<void> {
  await onState?.(structuredClone(state));
}

import { randomUUID } from 'node:crypto';
import type { BundleRepository } from '../../adapters/db/repositories/bundle-repository.js';
import type {
  BundleExpansion,
  BundleInputFile,
  BundleOutput,
  BundleWithExpansions,
} from '../../adapters/db/repositories/bundle-view-rows.js';
import type { NodeTreeRepository } from '../../adapters/db/repositories/node-tree-repository.js';
import type { UploadRepository } from '../../adapters/db/repositories/upload-repository.js';
import type { BundleRow, NodeRow, ProcessingRow, StoredObjectRow, UploadSessionRow } from '../../adapters/db/schema.js';
import type { Principal } from '../../domain/access/principal.js';
import { ApiError, validationError } from '../../domain/errors.js';
import { derivativeTilesetUrl, nodeThumbnailUrl } from '../../domain/nodes/content-urls.js';
import { nodeBlobPrefix } from '../../domain/uploads/blob-key.js';
import { inputKind, processedFormatsText } from '../../domain/uploads/file-formats.js';
import { MESH_MAX_TRIANGLES, meshLimitRefusal } from '../../domain/uploads/mesh-formats.js';
import type { Clock } from '../../ports/clock.js';
import type { JobQueue } from '../../ports/job-queue.js';
import type { NodeService } from '../node-service.js';
import { processingView } from '../processing/processing-view.js';
import type { WebhookOutbox } from '../webhooks/webhook-outbox.js';
import { meshInputTriangles } from './mesh-input-triangles.js';
import { type CompletedUpload, type UploadService, uploadTarget } from './upload-service.js';

export type { BundleExpansion };

/** What a bundle's body expands, as findWithExpansions read it. */
type Expanded = Pick<BundleWithExpansions, 'processings' | 'inputs' | 'outputs' | 'thumbnail'>;
const NOTHING_EXPANDED: Expanded = { processings: [], inputs: [], outputs: [], thumbnail: null };

const largest = (files: StoredObjectRow[]) =>
  files.reduce<StoredObjectRow | undefined>(
    (found, file) => ((file.stored_bytes ?? 0) > (found?.stored_bytes ?? -1) ? file : found),
    undefined,
  );

/**
 * The file processing works on (its format is the bundle's input format): the largest of the
 * files some processing reads (a point cloud, a video, a mesh's OBJ, glTF, GLB or PLY), so that a
 * texture larger than its mesh is not taken for the input; the largest of all when none is.
 */
export function mainInputFile(files: StoredObjectRow[]): StoredObjectRow | undefined {
  return largest(files.filter((file) => inputKind(file.format) !== null)) ?? largest(files);
}

function fileView(row: BundleInputFile) {
  return {
    id: row.id,
    name: row.name,
    size: row.stored_bytes ?? row.declared_bytes,
    state:
      row.state === 'finalized' ? ('uploaded' as const) : row.state === 'expired' ? ('expired' as const) : ('uploading' as const),
    etag: row.etag,
    format: row.format,
  };
}

/**
 * The input component (once recorded), then the outputs (derivative nodes, a point cloud's or a
 * mesh's with its tileset; `formats`: each derivative's stored format, by node id).
 */
function components(
  bundle: Pick<BundleRow, 'input_session_id' | 'input_format' | 'input_bytes'>,
  inputs: BundleInputFile[],
  outputs: BundleOutput[],
  formats: Map<string, string | null>,
  apiUrl: string,
) {
  // Built without spreads, as the rest of a fetch's body (see get).
  const parts: object[] = [];
  if (bundle.input_session_id) {
    parts.push({
      id: bundle.input_session_id,
      role: 'input',
      format: bundle.input_format,
      size: bundle.input_bytes,
      files: inputs.map(fileView),
    });
  }
  for (const output of outputs) {
    const derivative = {
      id: output.id,
      kind: output.kind,
      trashed_at: output.trashed_at,
      format: formats.get(output.id) ?? null,
    };
    parts.push({ id: output.id, role: 'output', name: output.name, tilesetUrl: derivativeTilesetUrl(apiUrl, derivative) });
  }
  return parts;
}

function sessionView(session: UploadSessionRow, files: StoredObjectRow[]) {
  return {
    id: session.id,
    bundleId: session.bundle_id,
    state: session.state,
    createdAt: session.created_at,
    expiresAt: session.expires_at,
    finalizedAt: session.finalized_at,
    files: files.map(fileView),
  };
}

/**
 * Refuses, before anything is stored, an input no processor reads (a PDF, an image): accepted,
 * it would be charged for and fail later. Processing reads the main file (mainInputFile).
 */
function refuseUnprocessed(files: StoredObjectRow[]): void {
  const main = mainInputFile(files);
  if (!main || inputKind(main.format) !== null) return;
  const which = files.length > 1 ? " (the largest of the session's files, none of which processing reads)" : '';
  throw new ApiError(
    'FileNotCompatible',
    `${main.name}${which} is ${main.format ?? 'of no known format'}, which no processing reads: a bundle's input must be ${processedFormatsText()}`,
  );
}

export interface BundleServiceOptions {
  clock: Clock;
  /** This region's public base address: absolute URLs in views start with it. */
  apiUrl: string;
  /** How long an upload session stays open (RDP_UPLOAD_EXPIRY_SECONDS). */
  uploadExpirySeconds: number;
  /** A running processing's progress, as its job last reported it. */
  jobs: Pick<JobQueue, 'get'>;
  nodes: Pick<NodeService, 'create' | 'authorize' | 'authorizeBeside'>;
  uploads: Pick<UploadService, 'lockQuota' | 'checkQuota' | 'open' | 'reserve' | 'complete' | 'readHead' | 'readChunks'>;
  /** The largest mesh input finalize takes, all its session's files counted (RDP_MESH_MAX_INPUT_BYTES). */
  meshMaxInputBytes: number;
  /** Upload sessions and their files. */
  storedObjects: Pick<
    UploadRepository,
    | 'objectsOfSession'
    | 'insertSession'
    | 'findSession'
    | 'pendingNameTaken'
    | 'insertObject'
    | 'finalizeSession'
    | 'finalizeObject'
  >;
  bundles: BundleRepository;
  tree: Pick<NodeTreeRepository, 'transaction'>;
  outbox: Pick<WebhookOutbox, 'record'>;
}

/**
 * Data bundles: a node with one input component, uploaded through an upload session whose
 * files reserve quota as they are added; finalizing the session makes its files the input.
 */
export class BundleService {
  private readonly nodes: BundleServiceOptions['nodes'];
  private readonly uploads: BundleServiceOptions['uploads'];
  private readonly storedObjects: BundleServiceOptions['storedObjects'];
  private readonly bundles: BundleRepository;
  private readonly tree: BundleServiceOptions['tree'];

  constructor(private readonly options: BundleServiceOptions) {
    this.nodes = options.nodes;
    this.uploads = options.uploads;
    this.storedObjects = options.storedObjects;
    this.bundles = options.bundles;
    this.tree = options.tree;
  }

  private now(): string {
    return this.options.clock.now().toISOString();
  }

  /** This region's public base address: absolute URLs in views start with it. */
  private apiUrl(): string {
    return this.options.apiUrl;
  }

  async create(principal: Principal, parentId: string, name: string) {
    let bundle: BundleRow | undefined;
    const node = await this.nodes.create(principal, parentId, 'dataBundle', name, undefined, async (tx, row) => {
      bundle = {
        node_id: row.id,
        org_id: row.org_id,
        state: 'created',
        dbu_path: nodeBlobPrefix(row.org_id, row.id), // its inputs under inputs/
        input_session_id: null,
        input_bytes: 0,
        input_format: null,
        input_triangles: null,
        created_at: row.created_at,
        updated_at: row.created_at,
      };
      await this.bundles.insert(tx, bundle);
    });
    return this.view(node, bundle as BundleRow, new Set());
  }

  /** The bundle node (the caller holds `permission` on it) and its row. */
  async authorized(principal: Principal, bundleId: string, permission: 'read' | 'upload' | 'process') {
    const seen = await this.nodes.authorize(principal, bundleId, permission);
    const found = seen.kind === 'dataBundle' ? await this.bundles.findWithNodeState(seen.id) : undefined;
    if (!found) throw new ApiError('NotFound', 'Data bundle not found');
    const { is_processing, is_failed, size_bytes, node_updated_at, ...bundle } = found;
    // The node's state as of the bundle's read: a job may have finished since the access check.
    return { node: { ...seen, is_processing, is_failed, size_bytes, updated_at: node_updated_at }, bundle };
  }

  /**
   * The bundle and its expansions in one statement, read beside the access check: that statement
   * alone while the caller's access result is cached and current, two otherwise
   * (docs/performance.md, "Bundle fetch with expansions"), and the body only once the check has passed.
   */
  async get(principal: Principal, bundleId: string, expand: Set<BundleExpansion>) {
    const { node: seen, read: found } = await this.nodes.authorizeBeside(
      principal,
      bundleId,
      'read',
      () => this.bundles.findWithExpansions(principal.orgId, bundleId, expand),
      (read) => read?.access_version,
    );
    if (seen.kind !== 'dataBundle' || found?.node_id !== seen.id) throw new ApiError('NotFound', 'Data bundle not found');
    // The node's state as of the bundle's read, as authorized() takes it. Written out, not spread
    // or destructured with a rest: objects made so were promoted to V8's old generation under load
    // (docs/performance.md, "Bundle fetch with expansions").
    const node = {
      id: seen.id,
      name: seen.name,
      parent_id: seen.parent_id,
      created_at: seen.created_at,
      is_processing: found.is_processing,
      is_failed: found.is_failed,
      size_bytes: found.size_bytes,
      updated_at: found.node_updated_at,
    };
    return this.view(node, found, expand, found);
  }

  private async view(
    node: Pick<NodeRow, 'id' | 'name' | 'parent_id' | 'created_at' | 'is_processing' | 'is_failed' | 'size_bytes' | 'updated_at'>,
    bundle: Pick<BundleRow, 'state' | 'dbu_path' | 'updated_at' | 'input_session_id' | 'input_format' | 'input_bytes'>,
    expand: Set<BundleExpansion>,
    expanded: Expanded = NOTHING_EXPANDED,
  ) {
    const body: Record<string, unknown> = {
      id: node.id,
      name: node.name,
      parentId: node.parent_id,
      state: bundle.state,
      dbuPath: bundle.dbu_path,
      size: node.size_bytes,
      isProcessing: node.is_processing === 1,
      isFailed: node.is_failed === 1,
      createdAt: node.created_at,
      // biome-ignore lint/complexity/useMathMinMax: the later of two ISO times, which compare as text (Math.max gives NaN).
      updatedAt: bundle.updated_at > node.updated_at ? bundle.updated_at : node.updated_at,
    };
    const { processings } = expanded;
    if (expand.has('processings')) {
      body.processings = await Promise.all(
        processings.map(async (row) =>
          processingView(
            row,
            row.derivative_node_id && row.derivative_kind
              ? derivativeTilesetUrl(this.apiUrl(), {
                  id: row.derivative_node_id,
                  kind: row.derivative_kind,
                  format: row.derivative_format,
                  trashed_at: row.derivative_trashed_at,
                })
              : null,
            await this.jobProgress(row),
          ),
        ),
      );
    }
    if (expand.has('components')) {
      const formats = new Map(processings.map((row) => [row.derivative_node_id ?? '', row.derivative_format]));
      body.components = components(bundle, expanded.inputs, expanded.outputs, formats, this.apiUrl());
    }
    if (expand.has('thumbnail')) {
      const { thumbnail } = expanded;
      body.thumbnail = thumbnail
        ? { url: nodeThumbnailUrl(this.apiUrl(), node.id), contentType: thumbnail.content_type, etag: thumbnail.etag }
        : null;
    }
    return body;
  }

  /** A running processing's progress, as its job last reported it (the queue's read, only while it runs). */
  private async jobProgress(row: Pick<ProcessingRow, 'state' | 'job_id'>): Promise<number | null> {
    if (row.state !== 'running' || !row.job_id) return null;
    return (await this.options.jobs.get(row.job_id))?.progress ?? null;
  }

  async openSession(principal: Principal, bundleId: string) {
    const { node, bundle } = await this.authorized(principal, bundleId, 'upload');
    if (bundle.input_session_id)
      throw new ApiError('BundleInputAlreadyExists', 'The bundle holds its one input component already');
    const now = this.options.clock.now();
    const session: UploadSessionRow = {
      id: randomUUID(),
      org_id: node.org_id,
      bundle_id: node.id,
      state: 'open',
      created_by: principal.userId,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + this.options.uploadExpirySeconds * 1000).toISOString(),
      finalized_at: null,
    };
    await this.tree.transaction(async (tx) => {
      await this.uploads.lockQuota(tx, node.org_id);
      // A session is refused when the organization has no byte left at all; each file checks its own size.
      await this.uploads.checkQuota(tx, node.org_id, 0, session.created_at, 'StorageLimitExceededAtUpload');
      await this.storedObjects.insertSession(tx, session);
    });
    return sessionView(session, []);
  }

  async getSession(principal: Principal, bundleId: string, sessionId: string) {
    await this.authorized(principal, bundleId, 'read');
    const session = await this.storedObjects.findSession(sessionId);
    if (!session || session.bundle_id !== bundleId) throw new ApiError('NotFound', 'Upload session not found');
    return sessionView(session, await this.storedObjects.objectsOfSession(session.id));
  }

  private async openSessionOf(principal: Principal, bundleId: string, sessionId: string) {
    const found = await this.authorized(principal, bundleId, 'upload');
    const session = await this.storedObjects.findSession(sessionId);
    if (!session || session.bundle_id !== bundleId) throw new ApiError('NotFound', 'Upload session not found');
    if (session.state !== 'open' || session.expires_at <= this.now()) {
      throw new ApiError('UploadSessionNotOpen', `The upload session is ${session.state === 'open' ? 'expired' : session.state}`);
    }
    return { ...found, session };
  }

  async addFile(principal: Principal, bundleId: string, sessionId: string, input: { name: string; size: number }) {
    const { node, session } = await this.openSessionOf(principal, bundleId, sessionId);
    const id = randomUUID();
    const opened = await this.uploads.open({
      id,
      orgId: node.org_id,
      purpose: 'bundle-input',
      nodeId: node.id,
      parentId: session.id,
      sessionId: session.id,
      name: input.name,
      bytes: input.size,
      blobKey: `${nodeBlobPrefix(node.org_id, node.id)}inputs/${id}`,
      createdBy: principal.userId,
    });
    await this.uploads.reserve(opened, () =>
      this.tree.transaction(async (tx) => {
        const now = opened.row.created_at;
        await this.uploads.lockQuota(tx, node.org_id);
        const current = await this.storedObjects.findSession(session.id, tx);
        if (current?.state !== 'open') throw new ApiError('UploadSessionNotOpen');
        if (await this.storedObjects.pendingNameTaken(tx, session.id, opened.row.name_key, now, 'bundle-input')) {
          throw new ApiError('FileAlreadyExists', 'The session already has a file of this name');
        }
        await this.uploads.checkQuota(tx, node.org_id, input.size, now, 'StorageLimitExceededAtUpload');
        await this.storedObjects.insertObject(tx, opened.row);
      }),
    );
    return { ...fileView(opened.row), ...uploadTarget(opened.plan) };
  }

  /**
   * Refuses a mesh input over the bounds of docs/design/meshes.md, as far as finalize can tell
   * (docs/processing.md, "Mesh inputs"): the session's bytes, and the triangles of its main file
   * (a PLY header's, a glTF's accessors', an OBJ's `f` lines). Returns those triangles, which
   * price the processing; null for other inputs and where finalize cannot tell.
   */
  private async refuseOverMeshLimits(files: StoredObjectRow[]): Promise<number | null> {
    const main = mainInputFile(files);
    if (!main || inputKind(main.format) !== 'mesh') return null;
    const sessionBytes = files.reduce((sum, file) => sum + (file.stored_bytes ?? 0), 0);
    const maxBytes = this.options.meshMaxInputBytes;
    const overBytes = meshLimitRefusal({ name: main.name, sessionBytes, maxBytes, triangles: undefined });
    if (overBytes) throw new ApiError('MeshInputTooLarge', overBytes);
    const triangles = await meshInputTriangles(main, this.uploads, MESH_MAX_TRIANGLES);
    const overTriangles = meshLimitRefusal({ name: main.name, sessionBytes, maxBytes, triangles });
    if (overTriangles) throw new ApiError('MeshInputTooLarge', overTriangles);
    return triangles ?? null;
  }

  /**
   * Completes every file of the session (each whole, the ETags the client sends matching, the
   * content what its name says), then in one transaction the files become the bundle's input.
   */
  async finalizeSession(principal: Principal, bundleId: string, sessionId: string, etags: Map<string, string>) {
    const { node, session } = await this.openSessionOf(principal, bundleId, sessionId);
    const files = (await this.storedObjects.objectsOfSession(session.id)).filter((file) => file.state !== 'expired');
    if (files.length === 0) throw validationError('The upload session has no file: add and upload at least one');
    for (const id of etags.keys()) {
      if (!files.some((file) => file.id === id)) throw validationError(`files: ${id} is not a file of this session`);
    }
    const completed = new Map<string, CompletedUpload>();
    for (const file of files) {
      if (file.state === 'finalized') continue;
      const result = await this.uploads.complete(file, etags.get(file.id), { etagRequired: false });
      completed.set(file.id, result);
    }
    const checked = files.map((file) => {
      const result = completed.get(file.id);
      return result ? { ...file, stored_bytes: result.bytes, format: result.format } : file;
    });
    refuseUnprocessed(checked);
    const triangles = await this.refuseOverMeshLimits(checked);
    const now = this.now();
    const recorded = await this.tree.transaction(async (tx) => {
      const bundle = await this.bundles.find(node.id, tx);
      if (!bundle || bundle.input_session_id) throw new ApiError('BundleInputAlreadyExists');
      if (!(await this.storedObjects.finalizeSession(tx, session.id, now))) throw new ApiError('UploadSessionNotOpen');
      for (const [id, result] of completed) {
        if (!(await this.storedObjects.finalizeObject(tx, id, { ...result, at: now })))
          throw new ApiError('UploadSessionNotOpen');
      }
      const stored = await this.storedObjects.objectsOfSession(session.id, tx);
      const bytes = stored.reduce((sum, file) => sum + (file.stored_bytes ?? 0), 0);
      const input = { sessionId: session.id, bytes, format: mainInputFile(stored)?.format ?? null, triangles, at: now };
      const event = { bundleId: node.id, uploadSessionId: session.id, bytes, files: stored.length };
      await this.options.outbox.record(tx, node.org_id, 'upload.finalized', event);
      return { bundle: await this.bundles.recordInput(tx, bundle, input), stored };
    });
    // The answer from what the transaction wrote; a bundle without input has had no processing, so no outputs.
    const body = await this.view(
      { ...node, size_bytes: recorded.bundle.input_bytes, updated_at: now },
      recorded.bundle,
      new Set(),
    );
    return { ...body, components: components(recorded.bundle, recorded.stored, [], new Map(), this.apiUrl()) };
  }
}

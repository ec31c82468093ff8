import { type MeshProcessResult, processMesh } from './meshes/mesh-processor.js';
import { type PointCloudOptions, type PointCloudResult, processPointCloud } from './point-cloud-processor.js';
import { detectPointCloudFile } from './point-clouds/open-point-cloud.js';
import { notCompatible, ProcessingError } from './processing-error.js';
import { processVideo, type VideoResult } from './video/process-video.js';

export type InputKind = 'point-cloud' | 'video' | 'mesh';

export interface ProcessInputOptions {
  onProgress?: (fraction: number) => void;
  /** Stops a processor that can stop midway (the mesh tiler) when the job is lost. */
  signal?: AbortSignal;
  /** RDP_RECONSTRUCTION_COMMAND, parsed by the caller's configuration. */
  reconstructionCommand?: string;
  pointCloud?: Omit<PointCloudOptions, 'onProgress'>;
}

export type ProcessResult = ({ kind: 'point-cloud' } & PointCloudResult) | VideoResult | MeshProcessResult;

/**
 * The one entry point of the worker: what the input really is decides the processor (point
 * cloud formats by their bytes, video by ffprobe). A declared kind that the content
 * contradicts is refused as not compatible. A mesh is known at finalize (a PLY with faces is
 * also a point cloud's format), so it comes declared, with every file of its session by name:
 * its references to materials, buffers and textures resolve among them.
 */
export async function processInput(
  input: { path: string; kind?: InputKind; byName?: Map<string, string> },
  outputDir: string,
  options: ProcessInputOptions = {},
): Promise<ProcessResult> {
  if (input.kind === 'mesh') {
    const byName = input.byName ?? new Map();
    return processMesh({ main: input.path, byName }, outputDir, { onProgress: options.onProgress, signal: options.signal });
  }
  const format = input.kind === 'video' ? undefined : await detectPointCloudFile(input.path);
  if (format) {
    const result = await processPointCloud(input.path, outputDir, { ...options.pointCloud, onProgress: options.onProgress });
    return { kind: 'point-cloud', ...result };
  }
  if (input.kind === 'point-cloud') {
    throw notCompatible('The content is not a point cloud in a supported format (LAS, LAZ, PLY, E57, XYZ, PTS)');
  }
  try {
    return await processVideo(input.path, outputDir, {
      onProgress: options.onProgress,
      reconstructionCommand: options.reconstructionCommand,
    });
  } catch (error) {
    if (input.kind === undefined && error instanceof ProcessingError && error.code === 'not-compatible') {
      throw notCompatible(
        `The content is neither a supported point cloud (LAS, LAZ, PLY, E57, XYZ, PTS) nor a video: ${error.message}`,
      );
    }
    throw error;
  }
}

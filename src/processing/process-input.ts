import { type PointCloudOptions, type PointCloudResult, processPointCloud } from './point-cloud-processor.js';
import { detectPointCloudFile } from './point-clouds/open-point-cloud.js';
import { notCompatible, ProcessingError } from './processing-error.js';
import { processVideo, type VideoResult } from './video/process-video.js';

export type InputKind = 'point-cloud' | 'video';

export interface ProcessInputOptions {
  onProgress?: (fraction: number) => void;
  /** RDP_RECONSTRUCTION_COMMAND, parsed by the caller's configuration. */
  reconstructionCommand?: string;
  pointCloud?: Omit<PointCloudOptions, 'onProgress'>;
}

export type ProcessResult = ({ kind: 'point-cloud' } & PointCloudResult) | VideoResult;

/**
 * The one entry point of the worker: what the input really is decides the processor (point
 * cloud formats by their bytes, video by ffprobe). A declared kind that the content
 * contradicts is refused as not compatible.
 */
export async function processInput(
  input: { path: string; kind?: InputKind },
  outputDir: string,
  options: ProcessInputOptions = {},
): Promise<ProcessResult> {
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

import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { ProcessingError } from '../processing-error.js';
import { probeVideo, type VideoProbe } from './probe-video.js';
import { runReconstruction } from './reconstruction.js';
import { extractKeyFrames, videoThumbnail } from './video-frames.js';
import { videoLimitViolations } from './video-limits.js';

export interface VideoOptions {
  onProgress?: (fraction: number) => void;
  /** The external reconstruction processor's command; none configured fails the processing. */
  reconstructionCommand?: string;
  maxKeyFrames?: number;
}

export interface VideoResult {
  kind: 'video';
  probe: VideoProbe;
  /** Relative to the output directory. */
  keyFrames: string[];
  thumbnailPath: string;
  /** The reconstruction's files, relative to the output directory. */
  files: string[];
}

/** Checks a video against the spec's limits, fails early when nothing can reconstruct it. */
export async function checkVideo(videoPath: string): Promise<VideoProbe> {
  const probe = await probeVideo(videoPath);
  const violations = videoLimitViolations(probe);
  if (violations.length > 0) throw new ProcessingError('video-limits', `The video cannot be processed: ${violations.join('; ')}`);
  return probe;
}

/**
 * A video input: probe and check the limits, then key frames and a thumbnail, then the
 * pluggable reconstruction on the key frames folder.
 */
export async function processVideo(videoPath: string, outputDir: string, options: VideoOptions = {}): Promise<VideoResult> {
  const report = options.onProgress ?? (() => {});
  report(0);
  const probe = await checkVideo(videoPath);
  if (!options.reconstructionCommand?.trim()) {
    throw new ProcessingError(
      'no-reconstruction-processor',
      'no reconstruction processor is configured (RDP_RECONSTRUCTION_COMMAND)',
    );
  }
  const framesDir = path.join(outputDir, 'key-frames');
  // Made before either ffmpeg starts: the thumbnail's is written straight into outputDir, and
  // waiting on the key frames' own mkdir raced it (ffmpeg could open its output first).
  await mkdir(outputDir, { recursive: true });
  // The thumbnail seeks to one frame: it runs beside the key frames' full decode, not after it.
  // Both are waited for even when one fails: no ffmpeg goes on writing once the job has failed.
  const [frames, thumbnail] = await Promise.allSettled([
    extractKeyFrames(videoPath, framesDir, { durationSeconds: probe.durationSeconds, maxFrames: options.maxKeyFrames }),
    videoThumbnail(videoPath, path.join(outputDir, 'thumbnail.png'), probe.durationSeconds),
  ]);
  if (frames.status === 'rejected') throw frames.reason;
  if (thumbnail.status === 'rejected') throw thumbnail.reason;
  report(0.25);
  const files = await runReconstruction(options.reconstructionCommand, framesDir, path.join(outputDir, 'reconstruction'));
  report(1);
  return {
    kind: 'video',
    probe,
    keyFrames: frames.value.map((name) => `key-frames/${name}`),
    thumbnailPath: 'thumbnail.png',
    files: files.map((name) => `reconstruction/${name}`),
  };
}

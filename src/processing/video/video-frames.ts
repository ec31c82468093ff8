import { mkdir, readdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { runTool } from './run-tool.js';

/**
 * Frames for reconstruction, spread evenly over the video (at most `maxFrames`, at most one a
 * source frame) as JPEG files key-00001.jpg, ...; returns their names in order. Decoding the
 * whole video is the cost: the decoder, the filter graph and the JPEG encoder each get the
 * machine's cores (ffmpeg's `-threads`, `-filter_threads`).
 */
export async function extractKeyFrames(
  videoPath: string,
  outDir: string,
  options: { durationSeconds: number; maxFrames?: number },
): Promise<string[]> {
  await mkdir(outDir, { recursive: true });
  const maxFrames = options.maxFrames ?? 300;
  const perSecond = maxFrames / Math.max(options.durationSeconds, 1);
  await runTool('ffmpeg', [
    '-v',
    'error',
    '-nostdin',
    '-y',
    '-filter_threads',
    String(availableParallelism()),
    '-threads',
    '0',
    '-i',
    videoPath,
    '-vf',
    `fps=${perSecond.toFixed(6)}`,
    '-threads',
    '0',
    '-frames:v',
    String(maxFrames),
    '-q:v',
    '3',
    path.join(outDir, 'key-%05d.jpg'),
  ]);
  return (await readdir(outDir)).filter((name) => /^key-\d{5}\.jpg$/.test(name)).sort();
}

/** A PNG of the frame a tenth of the way in, 256 pixels wide. */
export async function videoThumbnail(videoPath: string, outFile: string, durationSeconds: number): Promise<void> {
  await runTool('ffmpeg', [
    '-v',
    'error',
    '-nostdin',
    '-y',
    '-ss',
    (durationSeconds / 10).toFixed(3),
    '-i',
    videoPath,
    '-frames:v',
    '1',
    '-vf',
    'scale=256:-2',
    outFile,
  ]);
}

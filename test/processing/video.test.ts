import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  detectFormat,
  expectedFormat,
  FORMAT_PROBE_BYTES,
  inputKind,
  isCompatible,
} from '../../src/domain/uploads/file-formats.js';
import { processInput } from '../../src/processing/process-input.js';
import { ProcessingError } from '../../src/processing/processing-error.js';
import { probeVideo } from '../../src/processing/video/probe-video.js';
import { checkVideo } from '../../src/processing/video/process-video.js';
import { extractKeyFrames } from '../../src/processing/video/video-frames.js';
import { videoLimitViolations } from '../../src/processing/video/video-limits.js';
import { writeLas } from '../support/point-cloud-samples.js';
import { writeTestVideo } from '../support/video-samples.js';

let dir: string;
let good: string;
let short: string;
let sparse: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'rdp-video-'));
  good = path.join(dir, 'good.mp4');
  short = path.join(dir, 'short.mp4');
  sparse = path.join(dir, 'sparse.mp4');
  await Promise.all([writeTestVideo(good, 16, 2), writeTestVideo(short, 5, 10), writeTestVideo(sparse, 20, 1)]);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<ProcessingError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProcessingError);
  return error as ProcessingError;
}

describe('video inputs', () => {
  it.each(['mp4', 'mov', 'mkv', 'webm', 'avi', 'ts', 'm2ts'])(
    'recognises a .%s video by its first bytes as an input processing reads, and ffprobe reads it',
    async (extension) => {
      const file = path.join(dir, `container.${extension}`);
      await writeTestVideo(file, 1, 10);
      const format = detectFormat((await readFile(file)).subarray(0, FORMAT_PROBE_BYTES));
      expect(inputKind(format)).toBe('video');
      expect(isCompatible(expectedFormat(file), format)).toBe(true);
      expect((await probeVideo(file)).frameCount).toBe(10);
    },
  );
  it('probes duration, frames and size with ffprobe', async () => {
    const probe = await probeVideo(good);
    expect(probe.durationSeconds).toBeCloseTo(16, 0);
    expect(probe.frameCount).toBe(32);
    expect([probe.width, probe.height]).toEqual([160, 120]);
    expect(probe.codec).toBe('h264');
  });

  it('states each limit the spec sets (15 s to 30 min, at least 30 frames)', () => {
    expect(videoLimitViolations({ durationSeconds: 15, frameCount: 30 })).toEqual([]);
    expect(videoLimitViolations({ durationSeconds: 1800, frameCount: 30 })).toEqual([]);
    expect(videoLimitViolations({ durationSeconds: 14.9, frameCount: 30 })).toEqual([
      'the video is 14.9 s long; at least 15 s is required',
    ]);
    expect(videoLimitViolations({ durationSeconds: 1800.5, frameCount: 29 })).toEqual([
      'the video is 1800.5 s long; at most 30 minutes is allowed',
      'the video has 29 frames; at least 30 are required',
    ]);
  });

  it('refuses a too-short video and one with too few frames, each with its reason', async () => {
    const tooShort = await failure(checkVideo(short));
    expect(tooShort.code).toBe('video-limits');
    expect(tooShort.message).toBe('The video cannot be processed: the video is 5.0 s long; at least 15 s is required');
    const tooFew = await failure(checkVideo(sparse));
    expect(tooFew.message).toBe('The video cannot be processed: the video has 20 frames; at least 30 are required');
    await expect(checkVideo(good)).resolves.toMatchObject({ frameCount: 32 });
  });

  it('extracts key frames spread over the video as JPEG files', async () => {
    const out = path.join(dir, 'frames');
    const frames = await extractKeyFrames(good, out, { durationSeconds: 16, maxFrames: 8 });
    expect(frames).toHaveLength(8);
    const first = await readFile(path.join(out, frames[0]!));
    expect([first[0], first[1], first[2]]).toEqual([0xff, 0xd8, 0xff]);
  });

  it('fails with a clear reason when no reconstruction processor is configured', async () => {
    const error = await failure(processInput({ path: good }, path.join(dir, 'none')));
    expect(error.code).toBe('no-reconstruction-processor');
    expect(error.message).toMatch(/^no reconstruction processor is configured/);
  });

  it('runs the configured reconstruction command on the key frames, with a thumbnail', async () => {
    const script = path.join(dir, 'reconstruct.sh');
    await writeFile(
      script,
      '#!/bin/sh\nset -e\nls "$1" > "$2/frames.txt"\necho "mesh from $(ls "$1" | wc -l) frames" > "$2/mesh.obj"\n',
    );
    await chmod(script, 0o755);
    const out = path.join(dir, 'with reconstruction');
    const progress: number[] = [];
    const result = await processInput({ path: good }, out, {
      reconstructionCommand: script,
      onProgress: (fraction) => progress.push(fraction),
    });
    expect(result.kind).toBe('video');
    if (result.kind !== 'video') return;
    expect(result.files).toEqual(['reconstruction/frames.txt', 'reconstruction/mesh.obj']);
    const listed = (await readFile(path.join(out, 'reconstruction/frames.txt'), 'utf8')).trim().split('\n');
    expect(listed).toEqual(result.keyFrames.map((frame) => frame.replace('key-frames/', '')));
    const thumbnail = PNG.sync.read(await readFile(path.join(out, result.thumbnailPath)));
    expect(thumbnail.width).toBe(256);
    expect(progress.at(-1)).toBe(1);

    const failing = await failure(processInput({ path: good }, path.join(dir, 'failing'), { reconstructionCommand: 'false' }));
    expect(failing.code, failing.message).toBe('reconstruction-failed');
  });

  it('dispatches by content: a point cloud named .mp4 is tiled, text is neither', async () => {
    const las = path.join(dir, 'scan.mp4');
    await writeLas(las, 100);
    const result = await processInput({ path: las }, path.join(dir, 'las-out'));
    expect(result).toMatchObject({ kind: 'point-cloud', format: 'las', pointCount: 100 });
    const text = path.join(dir, 'notes.txt');
    await writeFile(text, 'not a scan, not a film\n');
    const error = await failure(processInput({ path: text }, path.join(dir, 'text-out')));
    expect(error.code).toBe('not-compatible');
    expect(error.message).toMatch(/^The content is neither a supported point cloud/);
    const mismatch = await failure(processInput({ path: good, kind: 'point-cloud' }, path.join(dir, 'mismatch')));
    expect(mismatch.code).toBe('not-compatible');
  });
});

import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A real test video from ffmpeg's lavfi test pattern: `seconds` long at `fps` frames a second,
 * small and encoded in H.264 in MP4, as a phone would hand us (only smaller).
 */
export async function writeTestVideo(path: string, seconds: number, fps: number): Promise<void> {
  await run('ffmpeg', [
    '-v',
    'error',
    '-nostdin',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `testsrc=duration=${seconds}:size=160x120:rate=${fps}`,
    '-pix_fmt',
    'yuv420p',
    path,
  ]);
}

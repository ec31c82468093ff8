import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import path from 'node:path';

/** The programs video processing runs: both come with Debian's package ffmpeg. */
export const VIDEO_TOOLS = ['ffprobe', 'ffmpeg'] as const;

/**
 * Whether an executable of this name is on PATH, as spawn would find it. Looked up rather than
 * run: ffmpeg loads many libraries, and a start-up should not wait for that.
 */
async function onPath(program: string): Promise<boolean> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    try {
      await access(path.join(dir, program), constants.X_OK);
      return true;
    } catch {
      // Not in this directory.
    }
  }
  return false;
}

/** The video tools this process cannot find: a worker without them fails every video input. */
export async function missingVideoTools(): Promise<string[]> {
  const found = await Promise.all(VIDEO_TOOLS.map(onPath));
  return VIDEO_TOOLS.filter((_, index) => !found[index]);
}

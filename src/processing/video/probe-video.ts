import { notCompatible } from '../processing-error.js';
import { runTool, ToolFailure } from './run-tool.js';

export interface VideoProbe {
  durationSeconds: number;
  frameCount: number;
  width: number;
  height: number;
  codec: string;
  container: string;
  framesPerSecond: number;
}

interface FfprobeJson {
  streams?: {
    codec_name?: string;
    width?: number;
    height?: number;
    nb_frames?: string;
    nb_read_packets?: string;
    avg_frame_rate?: string;
    duration?: string;
  }[];
  format?: { duration?: string; format_name?: string };
}

function rate(text: string | undefined): number {
  const [numerator, denominator] = (text ?? '0/1').split('/').map(Number);
  return denominator ? numerator! / denominator : 0;
}

/**
 * What ffprobe says about the first video stream. Frames are counted from the container's
 * declaration, or by reading every packet when it has none (some containers do not say).
 */
export async function probeVideo(path: string): Promise<VideoProbe> {
  let output: string;
  try {
    ({ stdout: output } = await runTool('ffprobe', [
      '-v',
      'error',
      '-select_streams',
      'v:0',
      '-count_packets',
      '-show_entries',
      'stream=codec_name,width,height,nb_frames,nb_read_packets,avg_frame_rate,duration:format=duration,format_name',
      '-of',
      'json',
      path,
    ]));
  } catch (error) {
    if (error instanceof ToolFailure)
      throw notCompatible(`The file is not a readable video: ${error.stderr.trim().split('\n').pop()}`);
    throw error;
  }
  const json = JSON.parse(output) as FfprobeJson;
  const stream = json.streams?.[0];
  if (!stream) throw notCompatible('The file has no video stream');
  const declared = Number(stream.nb_frames);
  const frameCount = Number.isFinite(declared) && declared > 0 ? declared : Number(stream.nb_read_packets ?? 0);
  const durationSeconds = Number(json.format?.duration ?? stream.duration ?? Number.NaN);
  return {
    durationSeconds: Number.isFinite(durationSeconds) ? durationSeconds : 0,
    frameCount,
    width: stream.width ?? 0,
    height: stream.height ?? 0,
    codec: stream.codec_name ?? 'unknown',
    container: json.format?.format_name ?? 'unknown',
    framesPerSecond: rate(stream.avg_frame_rate),
  };
}

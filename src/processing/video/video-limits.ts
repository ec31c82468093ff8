/**
 * The spec's limits on photogrammetry and 360-degree video inputs: 15 seconds to 30 minutes
 * long, at least 30 frames. Pure rules: the reasons a probed video fails, empty when it passes.
 */
export const VIDEO_MIN_SECONDS = 15;
export const VIDEO_MAX_SECONDS = 30 * 60;
export const VIDEO_MIN_FRAMES = 30;

export interface VideoFacts {
  durationSeconds: number;
  frameCount: number;
}

export function videoLimitViolations(video: VideoFacts): string[] {
  const reasons: string[] = [];
  const seconds = video.durationSeconds.toFixed(1);
  if (!(video.durationSeconds >= VIDEO_MIN_SECONDS)) {
    reasons.push(`the video is ${seconds} s long; at least ${VIDEO_MIN_SECONDS} s is required`);
  } else if (video.durationSeconds > VIDEO_MAX_SECONDS) {
    reasons.push(`the video is ${seconds} s long; at most ${VIDEO_MAX_SECONDS / 60} minutes is allowed`);
  }
  if (!(video.frameCount >= VIDEO_MIN_FRAMES)) {
    reasons.push(`the video has ${video.frameCount} frames; at least ${VIDEO_MIN_FRAMES} are required`);
  }
  return reasons;
}

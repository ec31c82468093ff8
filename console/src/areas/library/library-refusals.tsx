import { RdpApiError } from '@reality-data-platform/sdk/browser';
import { describeError } from '../../ui/errors.js';

/** The library's refusals with what the person can do about them; the platform's message follows, naming the specifics. */
const REFUSALS: Record<string, string> = {
  LibraryModelInUse:
    'This model is placed in twins, open drafts or planning layouts, so it cannot be deleted. Delete those placements first.',
  LibraryModelNotReady: 'Only a ready model can be placed: wait until its preview is made.',
  DuplicateTagName: 'Another tag has this name (names are compared without regard to case). Choose another.',
  FileNotCompatible: 'The file is none of the formats the library takes.',
  StorageLimitExceeded: "The file would exceed your organization's storage quota. Free some space, then try again.",
  FailedToLaunchProcessing: 'The preview could not be started. Try again in a moment.',
};

export function describeLibraryRefusal(error: unknown): string {
  const words = error instanceof RdpApiError ? REFUSALS[error.error] : undefined;
  if (!words) return describeError(error);
  const message = error instanceof RdpApiError ? error.body.message : undefined;
  return message ? `${words} (${message})` : words;
}

/** A refusal shown where it happened, announced at once. */
export function LibraryRefusal(props: { error: unknown }) {
  if (props.error === undefined || props.error === null) return null;
  return (
    <p class="notice error" role="alert">
      {describeLibraryRefusal(props.error)}
    </p>
  );
}

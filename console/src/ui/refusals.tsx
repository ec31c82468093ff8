import { RdpApiError } from '@reality-data-platform/sdk/browser';
import { describeError } from './errors.js';

/**
 * The spec's 409 codes of the tree's operations (move, create, trash, restore, hard delete) in
 * words for a person, with what they can do about it. `detail` adds the platform's message
 * where it names the specifics (which kind cannot hold which, how deep). `forceable`: the spec
 * lets the caller accept the change with force: true.
 */
const REFUSALS: Record<string, { words: string; detail?: boolean; forceable?: boolean }> = {
  // Move
  AccessRightsChangeRequired: {
    words:
      'Moving it there would change who can access it: the new place has different members and roles. Check that this is intended, then move it anyway.',
    forceable: true,
  },
  MaxDepthExceeded: { words: 'The tree would become too deep there. Choose a place higher up.', detail: true },
  CircularityFound: { words: 'That place is inside what you are moving. Choose a place outside it.' },
  NodeHaveMembershipsAttached: {
    words:
      'People or groups have roles inside what you are moving, so it cannot go where different members apply. Remove those roles first, or move it within the same members.',
  },
  NodesInDifferentRegions: { words: 'That place is stored in another region; nothing can move between regions.' },
  NodeCannotBeMoved: { words: 'This kind of item cannot be moved.' },
  DerivativesNotInCommonParent: {
    words: 'The results of its processing are not all in one place with it. Put them together first, then try again.',
  },
  SourcesNotInCommonParent: {
    words: 'The sources it was made from are not all in one place. Put them together first, then try again.',
  },
  DataBundleLinkedToTwin: { words: 'Its data bundle is shown in a twin. Unlink it from the twin first.' },
  DoesNotMeetHierarchyConstraints: { words: 'That place cannot hold this kind of item.', detail: true },
  MoveNodeFailed: { words: 'The move did not go through. Try again.', detail: true },
  // Trash, restore, hard delete
  NodeHasDerivatives: { words: 'The results of its processing must be removed first.' },
  NodeNotInDeletableState: { words: 'It is being processed, or its processing failed; it cannot go to the trash now.' },
  NodeHasBundleDependants: { words: 'Other items (such as planning projects) depend on its data bundle. Remove them first.' },
  DeleteNodeFailed: { words: 'It could not be moved to the trash.', detail: true },
  StorageLimitExceeded: {
    words: "Restoring it would exceed your organization's storage quota. Free some space, then try again.",
  },
  RestoreNodeFailed: { words: 'It could not be restored.', detail: true },
  NoNodeRemoved: { words: 'It is no longer in the trash, or cannot be removed now.' },
};

/** A refusal of the platform in words: the spec's 409 codes explained, anything else as the platform says it. */
export function describeRefusal(error: unknown): string {
  if (error instanceof RdpApiError && error.status === 409) {
    const refusal = REFUSALS[error.error];
    if (refusal) {
      const derivatives = (error.body.derivatives as { name: string }[] | undefined)?.map((item) => item.name);
      const details = [
        refusal.detail && error.body.message ? `(${error.body.message})` : '',
        derivatives?.length ? `Remove first: ${derivatives.join(', ')}.` : '',
      ];
      return [refusal.words, ...details].filter(Boolean).join(' ');
    }
  }
  return describeError(error);
}

/** Whether the spec allows retrying this refusal with force: true ("Move anyway"). */
export function isForceable(error: unknown): boolean {
  return error instanceof RdpApiError && error.status === 409 && REFUSALS[error.error]?.forceable === true;
}

/** A refusal shown where it happened and announced at once. */
export function RefusalNotice(props: { error: unknown }) {
  if (props.error === undefined || props.error === null) return null;
  return (
    <p class="notice error" role="alert">
      {describeRefusal(props.error)}
    </p>
  );
}

import { RdpApiError } from '@reality-data-platform/sdk/browser';
import { describeError } from '../../ui/errors.js';

/**
 * The people API's refusals (docs/people.md) in words for an administrator, with what they can
 * do about it; anything else as the platform says it.
 */
const REFUSALS: Record<string, string> = {
  DuplicateRoleName: 'Another role already has this name (names are compared without regard to case). Choose another name.',
  RoleInUse:
    'People or groups still have this role somewhere, or a pending invitation gives it. Take those roles away and withdraw those invitations first, then delete it.',
  AdministrativeRoleNotEditable: "Administrative roles are the platform's own: they cannot be changed or deleted.",
  CannotDeactivateSelf: 'You cannot deactivate yourself. Another administrator can.',
  LastAdministrator:
    'They are the last active administrator of the organization. Make someone else an Organization Administrator first.',
};

/**
 * The refusal in words; `forbidden` says what a 403 means where the caller is known to
 * administer people (reactivating someone: no seat is free).
 */
export function describePeopleRefusal(error: unknown, forbidden?: string): string {
  if (error instanceof RdpApiError) {
    const words = REFUSALS[error.error];
    if (words && error.status === 409) return words;
    if (forbidden && error.status === 403) return forbidden;
  }
  return describeError(error);
}

/** A people refusal shown where it happened and announced at once. */
export function PeopleRefusal(props: { error: unknown; forbidden?: string }) {
  if (props.error === undefined || props.error === null) return null;
  return (
    <p class="notice error" role="alert">
      {describePeopleRefusal(props.error, props.forbidden)}
    </p>
  );
}

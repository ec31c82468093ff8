import { ok } from '@reality-data-platform/sdk/browser';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { useSession } from '../../ui/session-context.js';
import { personName, type User } from './people-data.js';
import { PeopleRefusal } from './people-refusals.js';

/** A 403 to an administrator reactivating a person: the organization's seats are all taken (docs/people.md). */
const NO_SEAT =
  'No seat is free: every seat of the organization is taken by an active person. Deactivate someone else, or ask for more seats, then try again.';

function SeatRefusal(props: { error: unknown }) {
  return <PeopleRefusal error={props.error} forbidden={NO_SEAT} />;
}

/**
 * Deactivating a person or application in the organization (PATCH /v1/users/{id} active: false:
 * their tokens for it stop at once), or reactivating them (active: true, taking a seat again),
 * after a question naming them.
 */
export function ActivationDialog(props: { user: User; onChanged: (message: string) => void; onClose: () => void }) {
  const session = useSession();
  const { user } = props;
  const name = personName(user);
  const organization = session.info.organization.name;
  const deactivating = user.active;
  return (
    <ConfirmDialog
      title={deactivating ? `Deactivate ${name}?` : `Reactivate ${name}?`}
      confirm={deactivating ? 'Deactivate' : 'Reactivate'}
      danger={deactivating}
      notice={deactivating ? PeopleRefusal : SeatRefusal}
      onClose={props.onClose}
      action={async () => {
        await ok(
          session.api.PATCH('/v1/users/{userId}', { params: { path: { userId: user.id } }, body: { active: !deactivating } }),
        );
        props.onChanged(
          deactivating
            ? `${name} is deactivated: they can no longer use ${organization}.`
            : `${name} is active again in ${organization}.`,
        );
      }}
    >
      {deactivating ? (
        <p>
          {name} ({user.email}) can no longer sign in to {organization}, and whatever they signed in with stops working at once.
          You can reactivate them later.
        </p>
      ) : (
        <p>
          {name} ({user.email}) can sign in to {organization} again{user.kind === 'user' ? ', taking one of its seats' : ''}.
        </p>
      )}
    </ConfirmDialog>
  );
}

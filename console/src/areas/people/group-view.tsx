import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { navigate } from '../../router.js';
import { ErrorNotice, TextField } from '../../ui/components.js';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { flash, takeFlash } from '../../ui/flash.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { Outcome, type OutcomeOf } from '../../ui/outcome.js';
import { useSession } from '../../ui/session-context.js';
import { ShowMore } from '../../ui/show-more.js';
import { usePagedList } from '../../ui/use-paged-list.js';
import { useResource } from '../../ui/use-resource.js';
import { GroupDialog } from './group-dialog.js';
import { managedBy } from './groups-view.js';
import { NameOf } from './name-of.js';
import { findPersonByEmail, forgetNames, type Group, personName } from './people-data.js';
import { PeopleFrame } from './people-frame.js';

/** One group: rename or delete it, and its members (GET /v1/groups/{groupId}/users) added and removed. */
export function GroupView(props: { groupId: string }) {
  const session = useSession();
  const { groupId } = props;
  const group = useResource(() => ok(session.api.GET('/v1/groups/{groupId}', { params: { path: { groupId } } })), [groupId]);
  const [dialog, setDialog] = useState<'rename' | 'delete'>();
  const [outcome, setOutcome] = useState<OutcomeOf>(() => {
    const message = takeFlash();
    return message ? { message } : undefined;
  });

  if (!group.data) {
    return (
      <PeopleFrame title="Group">
        <LoadingOrError error={group.error} />
      </PeopleFrame>
    );
  }
  const current = group.data;
  const manual = !current.scimManaged && !current.samlLinked;
  return (
    <PeopleFrame
      title={`Group ${current.name}`}
      actions={
        !current.scimManaged && (
          <>
            <button type="button" class="quiet" onClick={() => setDialog('rename')}>
              Rename
            </button>
            {!current.isOrganizationGroup && (
              <button type="button" class="quiet danger-text" onClick={() => setDialog('delete')}>
                Delete group
              </button>
            )}
          </>
        )
      }
    >
      <p class="node-facts">
        Belongs to {current.divisionId ? <NameOf kind="node" id={current.divisionId} /> : 'the whole organization'}. Members
        managed by: {managedBy(current).toLowerCase()}.
        {current.isOrganizationGroup && ' A group of the whole organization cannot be deleted: give it a division first.'}
      </p>
      <Outcome outcome={outcome} />
      <Members group={current} manual={manual} onOutcome={setOutcome} onChanged={group.reload} />
      {dialog === 'rename' && (
        <GroupDialog
          group={current}
          onSaved={(saved) => {
            setDialog(undefined);
            forgetNames(session);
            setOutcome({ message: `Saved as ${saved.name}.` });
            group.reload();
          }}
          onClose={() => setDialog(undefined)}
        />
      )}
      {dialog === 'delete' && (
        <ConfirmDialog
          title={`Delete the group ${current.name}?`}
          confirm="Delete group"
          danger
          onClose={() => setDialog(undefined)}
          action={async () => {
            await ok(session.api.DELETE('/v1/groups/{groupId}', { params: { path: { groupId } } }));
            forgetNames(session);
            flash(`Group ${current.name} deleted.`);
            navigate('/people/groups');
          }}
        >
          <p>Its members stay in the organization, but lose the roles given to the group.</p>
        </ConfirmDialog>
      )}
    </PeopleFrame>
  );
}

function Members(props: { group: Group; manual: boolean; onOutcome: (outcome: OutcomeOf) => void; onChanged: () => void }) {
  const session = useSession();
  const { group } = props;
  const members = usePagedList(
    (page) => session.api.GET('/v1/groups/{groupId}/users', { params: { path: { groupId: group.id }, query: page } }),
    [group.id],
  );
  const [email, setEmail] = useState('');
  const [busy, setBusy] = useState(false);

  async function change(work: () => Promise<string>) {
    setBusy(true);
    try {
      props.onOutcome({ message: await work() });
      members.reload();
      props.onChanged();
    } catch (error) {
      props.onOutcome({ error });
    } finally {
      setBusy(false);
    }
  }
  const path = (userId: string) => ({ params: { path: { groupId: group.id, userId } } });

  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      {props.manual && (
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            void change(async () => {
              const person = await findPersonByEmail(session, email);
              if (!person) throw new Error(`No one in the organization has the address ${email.trim()}. Invite them first.`);
              await ok(session.api.PUT('/v1/groups/{groupId}/users/{userId}', path(person.id)));
              setEmail('');
              return `${personName(person)} added to ${group.name}.`;
            });
          }}
        >
          <TextField
            label="Add a member by e-mail address"
            type="email"
            value={email}
            onValue={setEmail}
            required
            maxLength={320}
          />
          <button type="submit" disabled={busy}>
            Add member
          </button>
        </form>
      )}
      {!members.items ? (
        <LoadingOrError error={members.error} />
      ) : members.items.length === 0 ? (
        <p>The group has no members yet.</p>
      ) : (
        <table>
          <caption class="visually-hidden">Members of {group.name}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">E-mail</th>
              {props.manual && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {members.items.map((user) => (
              <tr key={user.id}>
                <td>{personName(user)}</td>
                <td>{user.email}</td>
                {props.manual && (
                  <td>
                    <button
                      type="button"
                      class="quiet danger-text"
                      disabled={busy}
                      aria-label={`Remove ${personName(user)} from the group`}
                      onClick={() =>
                        change(async () => {
                          await ok(session.api.DELETE('/v1/groups/{groupId}/users/{userId}', path(user.id)));
                          return `${personName(user)} removed from ${group.name}.`;
                        })
                      }
                    >
                      Remove
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {members.items && <ErrorNotice error={members.error} />}
      <ShowMore list={members} what="members" />
    </section>
  );
}

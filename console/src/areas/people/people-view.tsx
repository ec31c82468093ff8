import { useState } from 'preact/hooks';
import { ChoiceField } from '../../ui/choice-field.js';
import { ErrorNotice, TextField } from '../../ui/components.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { Outcome } from '../../ui/outcome.js';
import { useSession } from '../../ui/session-context.js';
import { ShowMore } from '../../ui/show-more.js';
import { usePagedList } from '../../ui/use-paged-list.js';
import { InvitationsList } from './invitations-list.js';
import { InviteDialog } from './invite-dialog.js';
import { personName, type User } from './people-data.js';
import { PeopleFrame } from './people-frame.js';
import { ActivationDialog } from './person-activation.js';

type Filters = { email: string; kind: '' | 'user' | 'service'; active: '' | 'true' | 'false' };

/** The organization's people (GET /v1/users, by address, 100 at a time) with their state, and its invitations. */
export function PeopleView() {
  const [inviting, setInviting] = useState(false);
  const [outcome, setOutcome] = useState<{ message: string }>();
  const [invitationsGeneration, setInvitationsGeneration] = useState(0);
  return (
    <PeopleFrame
      title="People"
      actions={
        <button type="button" onClick={() => setInviting(true)}>
          Invite someone
        </button>
      }
    >
      <Outcome outcome={outcome} />
      <PeopleList onChanged={(message) => setOutcome({ message })} />
      <InvitationsList key={invitationsGeneration} />
      {inviting && (
        <InviteDialog
          onInvited={(email) => {
            setInviting(false);
            setOutcome({ message: `Invitation sent to ${email}.` });
            setInvitationsGeneration((generation) => generation + 1);
          }}
          onClose={() => setInviting(false)}
        />
      )}
    </PeopleFrame>
  );
}

function PeopleList(props: { onChanged: (message: string) => void }) {
  const session = useSession();
  const [activating, setActivating] = useState<User>();
  const [draft, setDraft] = useState<Filters>({ email: '', kind: 'user', active: '' });
  const [filters, setFilters] = useState<Filters>(draft);
  const people = usePagedList(
    (page) =>
      session.api.GET('/v1/users', {
        params: {
          query: {
            ...(filters.email.trim() ? { email: filters.email.trim() } : {}),
            ...(filters.kind ? { kind: filters.kind } : {}),
            ...(filters.active ? { active: filters.active === 'true' } : {}),
            ...page,
          },
        },
      }),
    [filters],
  );
  return (
    <section aria-labelledby="people-heading">
      <h2 id="people-heading">Members of {session.info.organization.name}</h2>
      <search aria-label="Find people">
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            setFilters(draft);
          }}
        >
          <TextField
            label="E-mail address (exactly)"
            type="email"
            value={draft.email}
            onValue={(email) => setDraft({ ...draft, email })}
            maxLength={320}
          />
          <ChoiceField
            label="Kind"
            value={draft.kind}
            onValue={(kind) => setDraft({ ...draft, kind: kind as Filters['kind'] })}
            options={[
              ['user', 'People'],
              ['service', 'Applications (service users)'],
              ['', 'People and applications'],
            ]}
          />
          <ChoiceField
            label="State"
            value={draft.active}
            onValue={(active) => setDraft({ ...draft, active: active as Filters['active'] })}
            options={[
              ['', 'Active and deactivated'],
              ['true', 'Active'],
              ['false', 'Deactivated'],
            ]}
          />
          <button type="submit">Show</button>
        </form>
      </search>
      {!people.items ? (
        <LoadingOrError error={people.error} />
      ) : people.items.length === 0 ? (
        <p role="status">No one matches.</p>
      ) : (
        <PeopleTable people={people.items} onActivation={setActivating} />
      )}
      {people.items && <ErrorNotice error={people.error} />}
      <ShowMore list={people} what="people" />
      {activating && (
        <ActivationDialog
          user={activating}
          onChanged={(message) => {
            setActivating(undefined);
            props.onChanged(message);
            people.reload();
          }}
          onClose={() => setActivating(undefined)}
        />
      )}
    </section>
  );
}

function PeopleTable(props: { people: User[]; onActivation: (user: User) => void }) {
  return (
    <table class="people-table">
      <caption class="visually-hidden">Members of the organization</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">E-mail</th>
          <th scope="col">State</th>
          <th scope="col">Member since</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {props.people.map((user) => (
          <tr key={user.id}>
            <td>{personName(user)}</td>
            <td>{user.email}</td>
            <td>{stateInWords(user)}</td>
            <td>{new Date(user.createdAt).toLocaleDateString()}</td>
            <td>
              <button
                type="button"
                class={user.active ? 'quiet danger-text' : 'quiet'}
                aria-label={`${user.active ? 'Deactivate' : 'Reactivate'} ${personName(user)}`}
                onClick={() => props.onActivation(user)}
              >
                {user.active ? 'Deactivate' : 'Reactivate'}
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function stateInWords(user: User): string {
  return [
    user.active ? 'Active' : 'Deactivated',
    user.kind === 'service' ? 'application' : '',
    user.isAdmin ? 'administrator' : '',
    user.scimManaged ? 'provisioned by your identity provider' : '',
  ]
    .filter(Boolean)
    .join(', ');
}

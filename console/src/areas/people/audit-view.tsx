import { useState } from 'preact/hooks';
import { ChoiceField } from '../../ui/choice-field.js';
import { ErrorNotice, TextField } from '../../ui/components.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { ShowMore } from '../../ui/show-more.js';
import { usePagedList } from '../../ui/use-paged-list.js';
import { AUDIT_ACTIONS, AuditActor, AuditWhat } from './audit-words.js';
import { PeopleFrame } from './people-frame.js';

type Filters = { action: string; from: string; to: string };

/** A calendar day of the form's date field as the instant it starts, here. */
function startOfDay(day: string, plusDays = 0): string {
  const date = new Date(`${day}T00:00`);
  date.setDate(date.getDate() + plusDays);
  return date.toISOString();
}

/**
 * The audit trail (GET /v1/audit-events, newest first, 50 at a time, continued by its cursor):
 * who did what and when, in words, filtered by what happened and between which days.
 */
export function AuditView() {
  const session = useSession();
  const [draft, setDraft] = useState<Filters>({ action: '', from: '', to: '' });
  const [filters, setFilters] = useState<Filters>(draft);
  const events = usePagedList(
    (page) =>
      session.api.GET('/v1/audit-events', {
        params: {
          query: {
            ...(filters.action ? { action: filters.action } : {}),
            ...(filters.from ? { since: startOfDay(filters.from) } : {}),
            // Through the whole of the last day chosen: before the next one starts.
            ...(filters.to ? { until: startOfDay(filters.to, 1) } : {}),
            ...page,
          },
        },
      }),
    [filters],
    50,
  );
  return (
    <PeopleFrame title="Audit trail">
      <p>Every change to people, groups, roles, memberships and invitations, newest first.</p>
      <search aria-label="Filter the audit trail">
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            setFilters(draft);
          }}
        >
          <ChoiceField
            label="What happened"
            value={draft.action}
            onValue={(action) => setDraft({ ...draft, action })}
            options={[['', 'Everything'], ...AUDIT_ACTIONS]}
          />
          <TextField label="From (day)" type="date" value={draft.from} onValue={(from) => setDraft({ ...draft, from })} />
          <TextField label="To (day)" type="date" value={draft.to} onValue={(to) => setDraft({ ...draft, to })} />
          <button type="submit">Show</button>
        </form>
      </search>
      {!events.items ? (
        <LoadingOrError error={events.error} />
      ) : events.items.length === 0 ? (
        <p role="status">Nothing was recorded{filters.action || filters.from || filters.to ? ' that matches' : ''}.</p>
      ) : (
        <table class="audit">
          <caption class="visually-hidden">Audit events, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
            </tr>
          </thead>
          <tbody>
            {events.items.map((event) => (
              <tr key={event.id}>
                <td>
                  <time dateTime={event.occurredAt}>{new Date(event.occurredAt).toLocaleString()}</time>
                </td>
                <td>
                  <AuditActor actor={event.actor} />
                </td>
                <td>
                  <AuditWhat event={event} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {events.items && <ErrorNotice error={events.error} />}
      <ShowMore list={events} what="events" />
    </PeopleFrame>
  );
}

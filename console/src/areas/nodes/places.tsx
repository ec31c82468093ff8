import { listPlaces, type Place, RdpApiError } from '@reality-data-platform/sdk/browser';
import { PageTitle } from '../../ui/components.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { kindName } from './node-kinds.js';
import { NodeLink } from './node-label.js';

/** Whether a read was refused for want of a role there (the organization, for a person whose roles are below it). */
export function isForbidden(error: unknown): boolean {
  return error instanceof RdpApiError && error.status === 403;
}

/**
 * The person's places (GET /v1/users/me/places, every page): the highest nodes where they hold
 * a role, with that role (docs/people.md "Places"). It is the first screen of whoever may not
 * browse the organization, and reachable from the organization's screen for everyone else.
 */
export function PlacesView() {
  const session = useSession();
  const places = useResource(() => listPlaces(session), []);
  return (
    <section class="places-screen">
      <PageTitle>Your places</PageTitle>
      {places.data ? <PlacesTable places={places.data} /> : <LoadingOrError error={places.error} />}
    </section>
  );
}

function PlacesTable(props: { places: Place[] }) {
  const session = useSession();
  if (props.places.length === 0) {
    return (
      <p>
        You hold no role anywhere in {session.info.organization.name} yet. Ask an administrator of your organization, or whoever
        invited you, to give you a role on a division or site.
      </p>
    );
  }
  return (
    <table class="nodes">
      <caption class="visually-hidden">Where you hold a role</caption>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Kind</th>
          <th scope="col">Your role</th>
        </tr>
      </thead>
      <tbody>
        {props.places.map((place) => (
          <tr key={place.node.id}>
            <td>
              <NodeLink node={place.node} />
            </td>
            <td>{kindName(place.node.type)}</td>
            <td>{place.roleName}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

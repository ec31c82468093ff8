import type { ComponentChildren } from 'preact';
import { PageTitle } from '../../ui/components.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { managesWebhooks } from './webhooks-access.js';

/**
 * The frame of the Webhooks screens: the title and the screen only for those who manage the
 * organization's webhooks (someone who opened the address anyway is told so, in words).
 */
export function WebhooksFrame(props: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  const session = useSession();
  const allowed = useResource(() => managesWebhooks(session), []);
  return (
    <section class="webhooks">
      <PageTitle actions={allowed.data ? props.actions : undefined}>{props.title}</PageTitle>
      {allowed.data === undefined ? (
        <LoadingOrError error={allowed.error} />
      ) : allowed.data ? (
        props.children
      ) : (
        <p class="notice">
          Only administrators of {session.info.organization.name} manage its webhooks: the addresses that hear of its changes.
        </p>
      )}
    </section>
  );
}

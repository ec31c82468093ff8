import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../ui/components.js';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { Outcome } from '../../ui/outcome.js';
import { useSession } from '../../ui/session-context.js';
import { ShowMore } from '../../ui/show-more.js';
import { usePagedList } from '../../ui/use-paged-list.js';
import type { NodePanelProps } from '../nodes/node-panels.js';
import { GrantDialog } from './grant-dialog.js';
import { InviteDialog } from './invite-dialog.js';
import { NameOf } from './name-of.js';
import { hasPeopleScopes } from './people-access.js';
import type { Membership } from './people-data.js';

/**
 * Who has which role on a container node (GET /v1/nodes/{nodeId}/memberships), with roles given
 * and taken away, and invitations to it: shown to people who may manage the node, as the
 * memberships API asks.
 */
export function MembersPanel(props: NodePanelProps) {
  const session = useSession();
  if (!hasPeopleScopes(session) || !props.node.permissions?.includes('manage')) return null;
  return <Members {...props} />;
}

function Members(props: NodePanelProps) {
  const session = useSession();
  const { node } = props;
  const memberships = usePagedList(
    (page) =>
      session.api.GET('/v1/nodes/{nodeId}/memberships', {
        params: { path: { nodeId: node.id }, query: { expand: 'principal', ...page } },
      }),
    [node.id],
  );
  const [dialog, setDialog] = useState<{ kind: 'grant' } | { kind: 'invite' } | { kind: 'revoke'; membership: Membership }>();
  const [outcome, setOutcome] = useState<{ message: string }>();
  function done(message: string) {
    setDialog(undefined);
    setOutcome({ message });
    memberships.reload();
  }

  return (
    <section aria-labelledby="node-members-heading" class="node-members">
      <div class="panel-title">
        <h2 id="node-members-heading">Members of {node.name}</h2>
        <div class="actions">
          <button type="button" onClick={() => setDialog({ kind: 'grant' })}>
            Give a role
          </button>
          <button type="button" class="quiet" onClick={() => setDialog({ kind: 'invite' })}>
            Invite by e-mail
          </button>
        </div>
      </div>
      <p class="hint">
        Roles given here reach everything inside {node.name}
        {node.type === 'organization' ? '' : ', together with the roles given on the places above it'}.
      </p>
      <Outcome outcome={outcome} />
      {!memberships.items ? (
        <LoadingOrError error={memberships.error} />
      ) : memberships.items.length === 0 ? (
        <p>No role is given here itself.</p>
      ) : (
        <table>
          <caption class="visually-hidden">Roles given on {node.name}</caption>
          <thead>
            <tr>
              <th scope="col">Who</th>
              <th scope="col">Role</th>
              <th scope="col">Since</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {memberships.items.map((membership) => (
              <tr key={membership.principalId}>
                <td>
                  <Principal membership={membership} />
                </td>
                <td>
                  <NameOf kind="role" id={membership.roleId} />
                </td>
                <td>{new Date(membership.createdAt).toLocaleDateString()}</td>
                <td>
                  <button
                    type="button"
                    class="quiet danger-text"
                    aria-label={`Take away the role of ${principalName(membership)}`}
                    onClick={() => setDialog({ kind: 'revoke', membership })}
                  >
                    Take away
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {memberships.items && <ErrorNotice error={memberships.error} />}
      <ShowMore list={memberships} what="members" />
      {dialog?.kind === 'grant' && <GrantDialog node={node} onGranted={done} onClose={() => setDialog(undefined)} />}
      {dialog?.kind === 'invite' && (
        <InviteDialog
          node={node}
          onInvited={(email) => done(`Invitation sent to ${email}.`)}
          onClose={() => setDialog(undefined)}
        />
      )}
      {dialog?.kind === 'revoke' && (
        <ConfirmDialog
          title={`Take the role on ${node.name} away from ${principalName(dialog.membership)}?`}
          confirm="Take away"
          danger
          onClose={() => setDialog(undefined)}
          action={async () => {
            const { principalId } = dialog.membership;
            await ok(
              session.api.DELETE('/v1/nodes/{nodeId}/memberships/{principalId}', {
                params: { path: { nodeId: node.id, principalId } },
              }),
            );
            const who = principalName(dialog.membership);
            done(`${who.charAt(0).toUpperCase()}${who.slice(1)} no longer has a role given on ${node.name}.`);
          }}
        >
          <p>They keep the roles given on other places, and those given to their groups.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

function principalName(membership: Membership): string {
  const name = membership.principal?.name ?? membership.principalId;
  return membership.principalType === 'group' ? `the group ${name}` : name;
}

function Principal(props: { membership: Membership }) {
  const { membership } = props;
  const name = membership.principal?.name ?? membership.principalId;
  if (membership.principalType === 'group') return <>Group {name}</>;
  return (
    <>
      {name}
      {membership.principal?.email && membership.principal.email !== name ? (
        <span class="muted"> ({membership.principal.email})</span>
      ) : null}
      {membership.principalType === 'service' ? ' (application)' : ''}
    </>
  );
}

import { NameOf } from './name-of.js';
import type { AuditEvent } from './people-data.js';

/** The actions the audit trail can be filtered by, in words (docs/people.md, "Audit"). */
export const AUDIT_ACTIONS: [action: string, words: string][] = [
  ['invitation.created', 'Invitations sent'],
  ['invitation.accepted', 'Invitations accepted'],
  ['invitation.revoked', 'Invitations withdrawn'],
  ['membership.set', 'Roles given'],
  ['membership.removed', 'Roles taken away'],
  ['group.created', 'Groups created'],
  ['group.updated', 'Groups changed'],
  ['group.deleted', 'Groups deleted'],
  ['group.member-added', 'Group members added'],
  ['group.member-removed', 'Group members removed'],
  ['user.created', 'People added'],
  ['user.updated', 'People changed'],
  ['user.deactivated', 'People deactivated'],
  ['user.reactivated', 'People reactivated'],
  ['user.removed', 'People removed'],
  ['role.created', 'Roles created'],
  ['role.updated', 'Roles changed'],
  ['role.deleted', 'Roles deleted'],
  ['scim-token.created', 'SCIM tokens created'],
  ['scim-token.deleted', 'SCIM tokens deleted'],
];

/** Who did it, in words: a person or application by name, the identity provider, an operator. */
export function AuditActor(props: { actor: AuditEvent['actor'] }) {
  const { actor } = props;
  switch (actor.type) {
    case 'scim':
      return <>Your identity provider (SCIM)</>;
    case 'admin-cli':
      return <>An operator, on the command line</>;
    default:
      return <NameOf kind="user" id={actor.id} />;
  }
}

/** What happened, as a sentence whose subject is the actor: "invited ada@example.com to North as Viewer". */
export function AuditWhat(props: { event: AuditEvent }) {
  const { action, target } = props.event;
  const details = props.event.details as Record<string, unknown>;
  const text = (key: string) => (typeof details[key] === 'string' ? (details[key] as string) : '');
  const node = () => <Name kind="node" id={text('nodeId')} />;
  const role = (key = 'roleId') => <Name kind="role" id={text(key)} />;
  const principal = () =>
    details.principalType === 'group' ? (
      <>
        the group <Name kind="group" id={text('principalId')} />
      </>
    ) : (
      <Name kind="user" id={text('principalId')} />
    );
  const groupName = () => (text('name') ? <strong>{text('name')}</strong> : <Name kind="group" id={target.id} />);
  const before = (details.before ?? {}) as Record<string, unknown>;
  const changes = (details.changes ?? {}) as Record<string, unknown>;

  switch (action) {
    case 'invitation.created':
      return (
        <>
          invited {text('email')} to {node()} as {role()}
        </>
      );
    case 'invitation.accepted':
      return (
        <>
          accepted the invitation of {text('email')} to {node()} as {role()}
        </>
      );
    case 'invitation.revoked':
      return (
        <>
          withdrew the invitation of {text('email')} to {node()}
        </>
      );
    case 'membership.set':
      return details.previousRoleId ? (
        <>
          changed the role of {principal()} on {node()} from {role('previousRoleId')} to {role()}
        </>
      ) : (
        <>
          gave {principal()} the role {role()} on {node()}
        </>
      );
    case 'membership.removed':
      return (
        <>
          took the role {role()} on {node()} from {principal()}
        </>
      );
    case 'group.created':
      return <>created the group {groupName()}</>;
    case 'group.updated':
      return typeof changes.name === 'string' && changes.name !== before.name ? (
        <>
          renamed the group <strong>{String(before.name)}</strong> to <strong>{changes.name}</strong>
        </>
      ) : (
        <>
          changed the group <strong>{String(before.name ?? '')}</strong>
        </>
      );
    case 'group.deleted':
      return <>deleted the group {groupName()}</>;
    case 'group.member-added':
      return (
        <>
          added <Name kind="user" id={text('userId')} /> to the group <Name kind="group" id={target.id} />
        </>
      );
    case 'group.member-removed':
      return (
        <>
          removed <Name kind="user" id={text('userId')} /> from the group <Name kind="group" id={target.id} />
        </>
      );
    default: {
      const [kind = action, verb = ''] = action.split('.');
      return (
        <>
          {verb.replace(/-/g, ' ') || action} {kind.replace(/-/g, ' ')}{' '}
          {target.type === 'user' ? <Name kind="user" id={target.id} /> : ''}
        </>
      );
    }
  }
}

function Name(props: { kind: 'user' | 'group' | 'node' | 'role'; id: string }) {
  if (!props.id) return <>someone</>;
  return (
    <strong>
      <NameOf kind={props.kind} id={props.id} />
    </strong>
  );
}

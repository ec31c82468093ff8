import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { ChoiceField } from '../../ui/choice-field.js';
import { TextField } from '../../ui/components.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { loadRoles, rolesFor } from './people-data.js';

/**
 * An invitation by e-mail with a role: to the organization (POST /v1/invitations), or to one
 * node when `node` is given (POST /v1/nodes/{nodeId}/invitations). The platform mails the link;
 * the person accepts it on the sign-in pages and lands in the console.
 */
export function InviteDialog(props: {
  node?: { id: string; name: string };
  onInvited: (email: string) => void;
  onClose: () => void;
}) {
  const session = useSession();
  const organization = session.info.organization;
  const node = props.node ?? organization;
  const onOrganization = node.id === organization.id;
  const roles = useResource(async () => rolesFor(await loadRoles(session), onOrganization), [onOrganization]);
  const [email, setEmail] = useState('');
  const [roleId, setRoleId] = useState('');
  const chosenRole = roleId || roles.data?.find((role) => role.kind === 'custom')?.id || roles.data?.[0]?.id || '';

  async function invite() {
    const body = { email: email.trim(), roleId: chosenRole };
    if (onOrganization) await ok(session.api.POST('/v1/invitations', { body }));
    else await ok(session.api.POST('/v1/nodes/{nodeId}/invitations', { params: { path: { nodeId: node.id } }, body }));
    props.onInvited(body.email);
  }

  return (
    <FormDialog
      title={`Invite someone to ${node.name}`}
      submit="Send invitation"
      disabled={!chosenRole}
      onSubmit={invite}
      onClose={props.onClose}
    >
      <TextField label="E-mail address" type="email" value={email} onValue={setEmail} required maxLength={254} autoFocus />
      {roles.data ? (
        <ChoiceField
          label="Role"
          value={chosenRole}
          onValue={setRoleId}
          options={roles.data.map((role) => [role.id, role.name])}
          required
        />
      ) : (
        <LoadingOrError error={roles.error} label="Loading the roles…" />
      )}
      <p class="hint">They get a mail with a link to accept; until then the invitation is listed as pending.</p>
    </FormDialog>
  );
}

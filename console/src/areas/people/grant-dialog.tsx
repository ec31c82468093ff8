import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { ChoiceField } from '../../ui/choice-field.js';
import { Dialog, TextField } from '../../ui/components.js';
import { DialogForm } from '../../ui/form-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { loadAncestors } from '../nodes/node-cache.js';
import type { NodeDetail } from '../nodes/node-kinds.js';
import { findPersonByEmail, loadRoles, personName, rolesFor } from './people-data.js';

/**
 * A role on the node for a person of the organization (found by e-mail address) or a group
 * (PUT /v1/nodes/{nodeId}/memberships/{principalId}, which replaces a role given there before).
 * Inside a division, the groups offered are that division's and the organization's.
 */
export function GrantDialog(props: { node: NodeDetail; onGranted: (message: string) => void; onClose: () => void }) {
  const session = useSession();
  const { node } = props;
  const choices = useResource(async () => {
    const division = node.type === 'division' ? node : (await loadAncestors(session, node)).find((up) => up.type === 'division');
    const [roles, groups] = await Promise.all([
      loadRoles(session),
      ok(session.api.GET('/v1/groups', { params: { query: { limit: 500, ...(division ? { divisionId: division.id } : {}) } } })),
    ]);
    return { roles: rolesFor(roles, node.type === 'organization'), groups };
  }, [node.id]);
  const [to, setTo] = useState<'person' | 'group'>('person');
  const [email, setEmail] = useState('');
  const [groupId, setGroupId] = useState('');
  const [roleId, setRoleId] = useState('');
  const chosenGroup = groupId || choices.data?.groups[0]?.id || '';
  const chosenRole = roleId || choices.data?.roles.find((role) => role.kind === 'custom')?.id || choices.data?.roles[0]?.id || '';

  async function grant() {
    let principal: { id: string; name: string };
    if (to === 'person') {
      const person = await findPersonByEmail(session, email);
      if (!person) throw new Error(`No one in the organization has the address ${email.trim()}. Invite them instead.`);
      principal = { id: person.id, name: personName(person) };
    } else {
      const group = choices.data?.groups.find((candidate) => candidate.id === chosenGroup);
      principal = { id: chosenGroup, name: `The group ${group?.name ?? ''}` };
    }
    const membership = await ok(
      session.api.PUT('/v1/nodes/{nodeId}/memberships/{principalId}', {
        params: { path: { nodeId: node.id, principalId: principal.id } },
        body: { roleId: chosenRole },
      }),
    );
    const role = choices.data?.roles.find((candidate) => candidate.id === membership.roleId);
    props.onGranted(`${principal.name} now has the role ${role?.name ?? chosenRole} on ${node.name}.`);
  }

  return (
    <Dialog title={`Give a role on ${node.name}`} onClose={props.onClose}>
      {!choices.data ? (
        <LoadingOrError error={choices.error} />
      ) : (
        <DialogForm submit="Give the role" disabled={!chosenRole} onSubmit={grant} onClose={props.onClose}>
          <fieldset class="choices">
            <legend>To</legend>
            <label class="check">
              <input type="radio" name="to" checked={to === 'person'} onChange={() => setTo('person')} />A person
            </label>
            <label class="check">
              <input
                type="radio"
                name="to"
                checked={to === 'group'}
                disabled={choices.data.groups.length === 0}
                onChange={() => setTo('group')}
              />
              A group{choices.data.groups.length === 0 ? ' (there is none that can be given a role here)' : ''}
            </label>
          </fieldset>
          {to === 'person' ? (
            <TextField label="E-mail address" type="email" value={email} onValue={setEmail} required maxLength={320} autoFocus />
          ) : (
            <ChoiceField
              label="Group"
              value={chosenGroup}
              onValue={setGroupId}
              options={choices.data.groups.map((group) => [group.id, group.name])}
              required
            />
          )}
          <ChoiceField
            label="Role"
            value={chosenRole}
            onValue={setRoleId}
            options={choices.data.roles.map((role) => [role.id, role.name])}
            required
          />
          <p class="hint">A role given here replaces the one they had here before, if any.</p>
        </DialogForm>
      )}
    </Dialog>
  );
}

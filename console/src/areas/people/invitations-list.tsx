import { ok } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../ui/components.js';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { Outcome } from '../../ui/outcome.js';
import { useSession } from '../../ui/session-context.js';
import { ShowMore } from '../../ui/show-more.js';
import { usePagedList } from '../../ui/use-paged-list.js';
import { NameOf } from './name-of.js';

/** The organization's pending invitations, newest first, each with where, which role, and a way to withdraw it. */
export function InvitationsList() {
  const session = useSession();
  const invitations = usePagedList(
    (page) => session.api.GET('/v1/invitations', { params: { query: { state: 'pending', ...page } } }),
    [],
    50,
  );
  const [withdrawing, setWithdrawing] = useState<{ id: string; email: string }>();
  const [outcome, setOutcome] = useState<{ message: string }>();
  return (
    <section aria-labelledby="invitations-heading">
      <h2 id="invitations-heading">Pending invitations</h2>
      <Outcome outcome={outcome} />
      {!invitations.items ? (
        <LoadingOrError error={invitations.error} />
      ) : invitations.items.length === 0 ? (
        <p>No invitation is waiting to be accepted.</p>
      ) : (
        <table>
          <caption class="visually-hidden">Pending invitations</caption>
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Where</th>
              <th scope="col">Role</th>
              <th scope="col">Sent</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {invitations.items.map((invitation) => (
              <tr key={invitation.id}>
                <td>{invitation.email}</td>
                <td>
                  <NameOf kind="node" id={invitation.nodeId} />
                </td>
                <td>
                  <NameOf kind="role" id={invitation.roleId} />
                </td>
                <td>{new Date(invitation.createdAt).toLocaleString()}</td>
                <td>
                  <button
                    type="button"
                    class="quiet danger-text"
                    aria-label={`Withdraw the invitation of ${invitation.email}`}
                    onClick={() => setWithdrawing(invitation)}
                  >
                    Withdraw
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {invitations.items && <ErrorNotice error={invitations.error} />}
      <ShowMore list={invitations} what="invitations" />
      {withdrawing && (
        <ConfirmDialog
          title={`Withdraw the invitation of ${withdrawing.email}?`}
          confirm="Withdraw"
          danger
          onClose={() => setWithdrawing(undefined)}
          action={async () => {
            await ok(
              session.api.DELETE('/v1/invitations/{invitationId}', { params: { path: { invitationId: withdrawing.id } } }),
            );
            setWithdrawing(undefined);
            setOutcome({ message: `The invitation of ${withdrawing.email} is withdrawn; its link no longer works.` });
            invitations.reload();
          }}
        >
          <p>Its link stops working. You can invite the address again later.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

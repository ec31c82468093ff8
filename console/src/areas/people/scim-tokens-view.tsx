import { ok, type operations } from '@reality-data-platform/sdk/browser';
import { useState } from 'preact/hooks';
import { Dialog, TextField } from '../../ui/components.js';
import { ConfirmDialog } from '../../ui/confirm-dialog.js';
import { CopyButton } from '../../ui/copy-button.js';
import { FormDialog } from '../../ui/form-dialog.js';
import { LoadingOrError } from '../../ui/loading-or-error.js';
import { Outcome } from '../../ui/outcome.js';
import { useSession } from '../../ui/session-context.js';
import { useResource } from '../../ui/use-resource.js';
import { PeopleFrame } from './people-frame.js';

// Not named schemas of the OpenAPI document: the operations' answers.
type ScimToken = operations['listScimTokens']['responses'][200]['content']['application/json'][number];
type CreatedScimToken = operations['createScimToken']['responses'][201]['content']['application/json'];

/**
 * The organization's SCIM tokens (GET /v1/scim-tokens): what each is for and when it was last
 * used; a new one, whose secret is shown once; revoking one (docs/people.md, "SCIM").
 */
export function ScimTokensView() {
  const session = useSession();
  const tokens = useResource(() => ok(session.api.GET('/v1/scim-tokens')), []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedScimToken>();
  const [revoking, setRevoking] = useState<ScimToken>();
  const [outcome, setOutcome] = useState<{ message: string }>();
  return (
    <PeopleFrame
      title="SCIM tokens"
      actions={
        <button type="button" onClick={() => setCreating(true)}>
          New SCIM token
        </button>
      }
    >
      <Outcome outcome={outcome} />
      <p>
        An identity provider (such as Entra ID or Okta) keeps the organization's people and groups in step through SCIM 2.0, with
        a token made here.
      </p>
      {!tokens.data ? (
        <LoadingOrError error={tokens.error} />
      ) : tokens.data.length === 0 ? (
        <p>There is no SCIM token.</p>
      ) : (
        <TokensTable tokens={tokens.data} onRevoke={setRevoking} />
      )}
      {creating && (
        <CreateTokenDialog
          onCreated={(token) => {
            setCreating(false);
            setCreated(token);
            setOutcome(undefined);
            tokens.reload();
          }}
          onClose={() => setCreating(false)}
        />
      )}
      {created && <CreatedTokenDialog token={created} onClose={() => setCreated(undefined)} />}
      {revoking && (
        <ConfirmDialog
          title={`Revoke the SCIM token ${revoking.name}?`}
          confirm="Revoke"
          danger
          onClose={() => setRevoking(undefined)}
          action={async () => {
            await ok(session.api.DELETE('/v1/scim-tokens/{tokenId}', { params: { path: { tokenId: revoking.id } } }));
            setRevoking(undefined);
            setOutcome({
              message: `The SCIM token ${revoking.name} is revoked; the identity provider using it is refused from now on.`,
            });
            tokens.reload();
          }}
        >
          <p>The identity provider using it can no longer change the organization's people and groups.</p>
        </ConfirmDialog>
      )}
    </PeopleFrame>
  );
}

function TokensTable(props: { tokens: ScimToken[]; onRevoke: (token: ScimToken) => void }) {
  return (
    <table>
      <caption class="visually-hidden">SCIM tokens</caption>
      <thead>
        <tr>
          <th scope="col">For</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">Actions</th>
        </tr>
      </thead>
      <tbody>
        {props.tokens.map((token) => (
          <tr key={token.id}>
            <td>{token.name}</td>
            <td>{new Date(token.createdAt).toLocaleString()}</td>
            <td>{token.lastUsedAt ? new Date(token.lastUsedAt).toLocaleString() : 'Never'}</td>
            <td>
              <button
                type="button"
                class="quiet danger-text"
                aria-label={`Revoke the SCIM token ${token.name}`}
                onClick={() => props.onRevoke(token)}
              >
                Revoke
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function CreateTokenDialog(props: { onCreated: (token: CreatedScimToken) => void; onClose: () => void }) {
  const session = useSession();
  const [name, setName] = useState('');
  return (
    <FormDialog
      title="New SCIM token"
      submit="Create token"
      onSubmit={async () => props.onCreated(await ok(session.api.POST('/v1/scim-tokens', { body: { name: name.trim() } })))}
      onClose={props.onClose}
    >
      <TextField label="What it is for" value={name} onValue={setName} required maxLength={255} autoFocus />
      <p class="hint">For example the identity provider's name, so you know which token to revoke later.</p>
    </FormDialog>
  );
}

/** The new token's secret, shown this once (only its hash is kept), with the address to give the identity provider. */
function CreatedTokenDialog(props: { token: CreatedScimToken; onClose: () => void }) {
  const { token } = props;
  return (
    <Dialog title={`SCIM token ${token.name} created`} onClose={props.onClose}>
      <p>Copy the token now: it is shown only this once. Give your identity provider the address and the token.</p>
      <dl class="secret">
        <dt>SCIM address</dt>
        <dd>
          <code data-testid="scim-url">{token.scimUrl}</code> <CopyButton text={token.scimUrl} label="Copy the address" />
        </dd>
        <dt>Token</dt>
        <dd>
          <code data-testid="scim-token">{token.token}</code> <CopyButton text={token.token} label="Copy the token" />
        </dd>
      </dl>
      <div class="buttons">
        <button type="button" onClick={props.onClose}>
          Done
        </button>
      </div>
    </Dialog>
  );
}
